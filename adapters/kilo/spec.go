package kilo

import (
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/adapters/internal/ocplugin"
	"github.com/notch-web/notch-web/adapters/opencode"
)

// Spec is Kilo Code CLI to notch-web (adapters/registry): as OpenCode's,
// a plugin file notch-web owns, in Kilo's plugin folder, which POSTs the
// events (Hooks) itself.
var Spec = agent.Spec{
	Name:    Agent,
	Display: display,
	Mark:    "KC",
	Version: "7.7.7",
	Map:     Map,
	// A Reply is typed only into an empty input: Kilo 7.7.7 draws
	// OpenCode's input box, placeholder and all, so OpenCode's rule reads
	// it (testdata/screens, input_test.go).
	EmptyInput: opencode.EmptyInput,
	Hooks:      hooks(),
	// Its database says how a turn ended (no event names it).
	Settled: Settled,
	// The plugin holds each permission.asked on the host and turns the
	// board's answer into Kilo's permission reply, while the TUI shows its
	// own prompt: the first answer wins.
	Answers: true,
	Asks:    agent.AskOpenCodePlugin,
	// Its first Esc says "esc again to interrupt"; the second interrupts.
	StopPresses: 2,
	ReplyEnter:  600 * time.Millisecond,
	Install: agent.Install{
		Scopes: []agent.Scope{
			{Name: "user", Dir: ".config/kilo/plugin", File: ocplugin.PluginFile},
			{Name: "project", Project: true, Dir: ".kilo/plugin", File: ocplugin.PluginFile},
		},
		Plugin: &agent.Plugin{Marker: Marker, Source: Plugin},
	},
	Help: "--scope user (~/.config/kilo/plugin/notch-web.js) or project\n(.kilo/plugin/notch-web.js): a plugin file of notch-web's",
}

// hooks are the events the plugin forwards, each POSTed by the plugin
// itself within a second.
func hooks() []agent.Hook {
	out := make([]agent.Hook, 0, len(ocplugin.Events))
	for _, e := range ocplugin.Events {
		out = append(out, agent.Hook{Event: e, Kind: agent.HTTP, Timeout: time.Second})
	}
	return out
}
