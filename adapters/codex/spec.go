package codex

import (
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
)

// Spec is Codex to notch-web (adapters/registry): command hooks in
// hooks.json (SessionEnd and Interrupt at 3 s, Codex's most for them), and
// notify and the hooks' trust in config.toml beside it.
var Spec = agent.Spec{
	EmptyInput: EmptyInput,
	Name:       Agent,
	Display:    "Codex",
	Mark:       "CX",
	Version:    "0.169.0",
	Map:        Map,
	// Its rollout says when a turn ended while the host was down.
	Settled: agent.ByTranscript(Settled),
	// Its rollout's token_count events carry the plan's windows (as the
	// model API's rate-limit headers said them) and the thread's tokens,
	// after every model response.
	Plan:   Plan,
	Limits: agent.Limits{Source: "the rollout's token_count rate_limits (primary and secondary windows, resets_at), after every model response"},
	Why:    agent.ByWhy(Why),
	Hooks:  hooks(),
	// Its PermissionRequest command hook takes Claude Code's decision, but
	// Codex shows its own prompt only once the hook returned: opt-in, and
	// short.
	Answers:    true,
	AnswerWait: 10 * time.Second,
	// The hooks run under the app-server daemon; the TUI in the pane is
	// its client (docs/terminal.md).
	DaemonClient: true,
	Install: agent.Install{
		Scopes:      []agent.Scope{{Name: "user", Dir: ".codex", File: "hooks.json", EnvDir: "CODEX_HOME"}},
		Style:       agent.StyleClaude,
		CodexConfig: true,
	},
	// Codex: codex [PROMPT]; codex resume SESSION_ID [PROMPT] (--help of the version above).
	Launch: &agent.Launch{Argv: []string{"codex"}, Prompt: agent.AfterDashes, Resume: func(id string) []string { return []string{"resume", id} }},
	Help:   "~/.codex/hooks.json (command hooks) and notify in ~/.codex/config.toml",
}

func hooks() []agent.Hook {
	out := make([]agent.Hook, 0, len(Events))
	for _, e := range Events {
		h := agent.Hook{Event: e, Kind: agent.Command, Timeout: 5 * time.Second}
		if e == SessionEnd || e == Interrupt {
			h.Timeout = 3 * time.Second
		}
		out = append(out, h)
	}
	return out
}
