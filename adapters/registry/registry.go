// Package registry lists the agents notch-web knows. Adding an agent is one
// adapter package declaring its agent.Spec, and one line here
// (docs/adding-an-agent.md).
package registry

import (
	"github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/adapters/claudecode"
	"github.com/notch-web/notch-web/adapters/codex"
	"github.com/notch-web/notch-web/adapters/copilot"
	"github.com/notch-web/notch-web/adapters/gemini"
	"github.com/notch-web/notch-web/adapters/kilo"
	"github.com/notch-web/notch-web/adapters/opencode"
	"github.com/notch-web/notch-web/adapters/pi"
	"github.com/notch-web/notch-web/adapters/qwen"
)

// All are the agents, in the order help and status list them.
var All = []agent.Spec{
	claudecode.Spec,
	codex.Spec,
	gemini.Spec,
	opencode.Spec,
	copilot.Spec,
	qwen.Spec,
	kilo.Spec,
	pi.Spec,
}

// Get is the agent named name.
func Get(name string) (agent.Spec, bool) {
	for _, s := range All {
		if s.Name == name {
			return s, true
		}
	}
	return agent.Spec{}, false
}

// Names are the agents' names.
func Names() []string {
	out := make([]string, len(All))
	for i, s := range All {
		out[i] = s.Name
	}
	return out
}
