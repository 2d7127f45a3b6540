package claudecode

import (
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
)

// Spec is Claude Code to notch-web (adapters/registry): http hooks for
// every event, but SessionStart as a command hook, for Claude Code skips
// http hooks for SessionStart ("HTTP hooks are not supported for
// SessionStart").
var Spec = agent.Spec{
	EmptyInput:  EmptyInput,
	Name:        Agent,
	Display:     "Claude Code",
	Mark:        "CC",
	Version:     "2.1.328",
	Map:         Map,
	Tokens:      Tokens,
	Interrupted: Interrupted,
	Idle:        Idle,
	Busy:        Busy,
	Settled:     agent.ByTranscript(Settled),
	// Its statusLine command gets the plan's windows (subscribers, after
	// the first reply) at every update: "notch-web statusline" posts them.
	Limits:  agent.Limits{Source: "the statusline's rate_limits (five_hour and seven_day windows, resets_at), at every statusline update"},
	Process: Process,
	Hooks:   hooks(),
	// Its PermissionRequest http hook is held while its dialog shows:
	// the board answers by default.
	Answers: true,
	Install: agent.Install{
		Scopes: []agent.Scope{
			{Name: "user", Dir: ".claude", File: "settings.json", EnvDir: "CLAUDE_CONFIG_DIR"},
			{Name: "project", Project: true, Dir: ".claude", File: "settings.json"},
			{Name: "local", Project: true, Dir: ".claude", File: "settings.local.json"},
		},
		Style: agent.StyleClaude,
		Warnings: []agent.Warning{
			{Keys: []string{"disableAllHooks"}, When: "true", Says: "sets disableAllHooks: no hook runs until it is removed"},
			{Keys: []string{"allowedHttpHookUrls"}, When: "set", Says: "sets allowedHttpHookUrls: make sure it admits notch-web's URL"},
		},
	},
	// Claude Code: claude [options] [prompt]; --resume ID keeps the session's id (--help of the version above).
	Launch: &agent.Launch{Argv: []string{"claude"}, Prompt: agent.AfterDashes, Resume: agent.Option("--resume")},
	Help: "--scope user (~/.claude/settings.json), project (.claude/settings.json)\n" +
		"or local (.claude/settings.local.json): http hooks to URL (SessionStart: a command hook)",
}

func hooks() []agent.Hook {
	out := make([]agent.Hook, 0, len(Events))
	for _, e := range Events {
		h := agent.Hook{Event: e, Kind: agent.HTTP, Timeout: 2 * time.Second}
		switch e {
		case SessionStart:
			h.Kind, h.Timeout = agent.Command, 5*time.Second
		case Notification:
			h.Matcher = "permission_prompt"
		}
		out = append(out, h)
	}
	return out
}
