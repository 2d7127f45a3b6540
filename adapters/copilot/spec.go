package copilot

import (
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
)

// Spec is GitHub Copilot CLI to notch-web (adapters/registry): command
// hooks in a file of notch-web's own in Copilot's hooks folder, in Claude
// Code's shape.
var Spec = agent.Spec{
	Name:    Agent,
	Display: "GitHub Copilot CLI",
	Mark:    "CP",
	Version: "1.0.102",
	Map:     Map,
	// A Reply is typed only into an empty input (input.go).
	EmptyInput: EmptyInput,
	Tokens:     Tokens,
	// Its usage records carry the model's window too.
	Window: Window,
	// Its session file says when the human interrupted a turn, and when
	// the TUI's turn failed on the model — no hook does; only Stop names
	// the file, so the host finds it for a first turn (SessionFile).
	Interrupted: Interrupted,
	Failed:      Failed,
	SessionFile: SessionFile,
	// The same file says how a turn ended (its Stop's record, an abort, a
	// session.error): a turn that ended while the host was down shows as
	// ended.
	Settled: Settled,
	Why:     Why,
	// Ctrl-C stops its turn; Escape does not while the model streams.
	StopKey: "C-c",
	Hooks:   hooks(),
	Install: agent.Install{
		Scopes: []agent.Scope{
			{Name: "user", Dir: ".copilot", File: "hooks/notch-web.json", EnvDir: "COPILOT_HOME"},
			{Name: "project", Project: true, Dir: ".github", File: "hooks/notch-web.json"},
		},
		// The file is notch-web's alone: Copilot's disableAllHooks lives in
		// its settings.json, which install does not read.
		Style: agent.StyleClaude,
		// A file of notch-web's own: uninstall removes it (Copilot logs an
		// error for a hooks file without "hooks").
		OwnFile: true,
	},
	// GitHub Copilot CLI: -i/--interactive PROMPT; --resume ID (--help of the version above).
	Launch: &agent.Launch{Argv: []string{"copilot"}, Prompt: agent.Option("--interactive"), Resume: agent.Option("--resume")},
	Help:   "--scope user (~/.copilot/hooks/notch-web.json) or project\n(.github/hooks/notch-web.json): command hooks",
}

func hooks() []agent.Hook {
	out := make([]agent.Hook, 0, len(Events))
	for _, e := range Events {
		out = append(out, agent.Hook{Event: e, Kind: agent.Command, Timeout: 5 * time.Second})
	}
	return out
}
