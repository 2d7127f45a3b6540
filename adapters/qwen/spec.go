package qwen

import (
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/adapters/claudecode"
)

// Spec is Qwen Code to notch-web (adapters/registry): command hooks for
// Claude Code's events in ~/.qwen/settings.json, in Claude Code's shape.
var Spec = agent.Spec{
	Name:    Agent,
	Display: "Qwen Code",
	Mark:    "QW",
	Version: "0.24.4",
	Map:     Map,
	// A Reply is typed only into an empty input (input.go).
	EmptyInput: EmptyInput,
	// Its chat file says when the human refused a call at its dialog
	// (idle_prompt does too, but not always), and how a turn ended while
	// the host was down.
	Interrupted: Interrupted,
	Settled:     agent.ByTranscript(Settled),
	// StopFailure (MessageDisplay, SessionDelete) runs under a detached
	// supervisor node, "node --input-type=commonjs --eval …", that may
	// outlive the agent: its hook's process is not watched.
	HelperEvents: []string{claudecode.StopFailure},
	Hooks:        hooks(),
	// Its PermissionRequest command hook takes Claude Code's decision (its
	// core's firePermissionRequestHook), but it is awaited before the
	// dialog is shown (the call is "awaiting_approval" only after): as for
	// Codex, answering from the board is opt-in, and short.
	Answers:    true,
	AnswerWait: 10 * time.Second,
	// Its scheduler takes a hook's allow only for a call that needs no
	// interaction of its own (requiresUserInteraction): these tools'
	// dialogs come all the same (exit_plan_mode's in plan mode), so the
	// board offers no Allow that would do nothing.
	OwnDialog: []string{"ask_user_question", "exit_plan_mode", "propose_goal"},
	Install: agent.Install{
		Scopes: []agent.Scope{
			{Name: "user", Dir: ".qwen", File: "settings.json", EnvDir: "QWEN_HOME"},
			{Name: "project", Project: true, Dir: ".qwen", File: "settings.json"},
		},
		Style: agent.StyleClaude,
		Warnings: []agent.Warning{
			{Keys: []string{"disableAllHooks"}, When: "true", Says: "sets disableAllHooks: no hook runs until it is removed"},
			{Keys: []string{"tools", "executionSandbox"}, When: "set", Says: "sets tools.executionSandbox: Qwen Code runs no hook while its shell sandbox is on"},
		},
	},
	// Qwen Code: its positional prompt is one-shot, -i/--prompt-interactive stays; -r/--resume ID (--help of the version above).
	Launch: &agent.Launch{Argv: []string{"qwen"}, Prompt: agent.Option("--prompt-interactive"), Resume: agent.Option("--resume")},
	Help:   "--scope user (~/.qwen/settings.json, $QWEN_HOME) or project (.qwen/settings.json):\ncommand hooks",
}

func hooks() []agent.Hook {
	out := make([]agent.Hook, 0, len(Events))
	for _, e := range Events {
		h := agent.Hook{Event: e, Kind: agent.Command, Timeout: 5 * time.Second}
		if e == claudecode.Notification {
			h.Matcher = "permission_prompt|idle_prompt"
		}
		out = append(out, h)
	}
	return out
}
