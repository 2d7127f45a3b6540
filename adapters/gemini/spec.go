package gemini

import (
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
)

// Spec is Gemini CLI to notch-web (adapters/registry): named command hooks
// in settings.json.
var Spec = agent.Spec{
	EmptyInput: EmptyInput,
	Name:       Agent,
	Display:    "Gemini CLI",
	Mark:       "GE",
	Version:    "0.61.0",
	Map:        Map,
	// Its chat transcript says when the human cancelled (Esc) — no hook does.
	Interrupted: Interrupted,
	// So does it when a turn ended while the host was down.
	Settled: agent.ByTranscript(Settled),
	Why:     agent.ByWhy(Why),
	Hooks:   hooks(),
	// It reads a burst as a paste and drops an Enter in it.
	ReplyEnter: 600 * time.Millisecond,
	Install: agent.Install{
		Scopes: []agent.Scope{
			{Name: "user", Dir: ".gemini", File: "settings.json"},
			{Name: "project", Project: true, Dir: ".gemini", File: "settings.json"},
		},
		Style: agent.StyleGemini,
		Name:  "notch-web",
		Warnings: []agent.Warning{
			{Keys: []string{"hooksConfig", "enabled"}, When: "false", Says: "sets hooksConfig.enabled to false: no hook runs until it is true"},
			{Keys: []string{"tools", "enableHooks"}, When: "false", Says: "sets tools.enableHooks to false: no hook runs until it is true"},
		},
	},
	// Gemini CLI: -i/--prompt-interactive runs the prompt and stays interactive; --resume takes "latest" or an index, not an id (--help of the version above).
	Launch: &agent.Launch{Argv: []string{"gemini"}, Prompt: agent.Option("--prompt-interactive")},
	Help:   "--scope user (~/.gemini/settings.json) or project (.gemini/settings.json):\ncommand hooks",
}

func hooks() []agent.Hook {
	out := make([]agent.Hook, 0, len(Events))
	for _, e := range Events {
		h := agent.Hook{Event: e, Kind: agent.Command, Timeout: 3 * time.Second}
		if e == Notification {
			h.Matcher = ToolPermission
		}
		out = append(out, h)
	}
	return out
}
