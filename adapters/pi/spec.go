package pi

import (
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
)

// Spec is Pi to notch-web (adapters/registry): an extension file
// notch-web owns, in Pi's extensions folder, which POSTs the events
// (Hooks) itself.
var Spec = agent.Spec{
	Name:    Agent,
	Display: "Pi",
	Mark:    "PI",
	Version: "0.73.1",
	Map:     Map,
	Hooks:   hooks(),
	// Its session file says how a turn ended.
	Settled: agent.ByTranscript(Settled),
	// Its input between its two rules: a Reply types nothing over a draft.
	EmptyInput: EmptyInput,
	Install: agent.Install{
		Scopes: []agent.Scope{
			{Name: "user", Dir: ".pi/agent/extensions", File: File},
			{Name: "project", Project: true, Dir: ".pi/extensions", File: File},
		},
		Plugin: &agent.Plugin{Marker: Marker, Source: Extension},
	},
	Help: "--scope user (~/.pi/agent/extensions/notch-web.ts) or project\n(.pi/extensions/notch-web.ts): an extension file of notch-web's",
}

// hooks are the events the extension forwards, each POSTed by the
// extension itself within a second.
func hooks() []agent.Hook {
	out := make([]agent.Hook, 0, len(Events))
	for _, e := range Events {
		out = append(out, agent.Hook{Event: e, Kind: agent.HTTP, Timeout: time.Second})
	}
	return out
}
