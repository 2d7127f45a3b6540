package opencode

import (
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
)

// Spec is OpenCode to notch-web (adapters/registry): not hooks in a
// settings file but a plugin file notch-web owns, in OpenCode's plugin
// folder, which POSTs the events (Hooks) itself.
var Spec = agent.Spec{
	Name:    Agent,
	Display: "OpenCode",
	Mark:    "OC",
	Version: "1.18.33",
	Map:     Map,
	// A Reply is typed only into an empty input (input.go).
	EmptyInput: EmptyInput,
	Hooks:      hooks(),
	// Its database says how a turn ended (no hook names it): a turn that
	// ended while the host was down shows as ended.
	Settled: Settled,
	// The plugin sends each permission.asked again as a request the host
	// holds (Ask) and turns the board's answer into OpenCode's permission
	// reply, while the TUI shows its own prompt: the first answer wins, so
	// answering from the board is on by default, as for Claude Code.
	Answers: true,
	Asks:    agent.AskOpenCodePlugin,
	// Its first Esc says "esc again to interrupt"; the second interrupts.
	StopPresses: 2,
	// Under load (load average 10) a Reply whose Enter came 150 ms after
	// its text was left in its input box, not sent.
	ReplyEnter: 600 * time.Millisecond,
	Install: agent.Install{
		Scopes: []agent.Scope{
			{Name: "user", Dir: ".config/opencode/plugin", File: PluginFile},
			{Name: "project", Project: true, Dir: ".opencode/plugin", File: PluginFile},
		},
		Plugin: &agent.Plugin{Marker: Marker, Source: Plugin},
	},
	// OpenCode: --prompt; -s/--session ID continues a session (--help of the version above).
	Launch: &agent.Launch{Argv: []string{"opencode"}, Prompt: agent.Option("--prompt"), Resume: agent.Option("--session")},
	Help:   "--scope user (~/.config/opencode/plugin/notch-web.js) or project\n(.opencode/plugin/notch-web.js): a plugin file of notch-web's",
}

// hooks are the events the plugin forwards, each POSTed by the plugin
// itself within a second.
func hooks() []agent.Hook {
	out := make([]agent.Hook, 0, len(Events))
	for _, e := range Events {
		out = append(out, agent.Hook{Event: e, Kind: agent.HTTP, Timeout: time.Second})
	}
	return out
}
