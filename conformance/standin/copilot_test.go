package standin

import (
	"strings"
	"testing"
)

// TestCopilot: GitHub Copilot CLI's Anthropic requests (its shell tool is
// bash, its subagent tool task) get the scripted turns, each call's input
// what Copilot's schemas require.
func TestCopilot(t *testing.T) {
	const tools = `"tools":[{"name":"bash"},{"name":"view"},{"name":"ask_user"},{"name":"task"}]`
	for _, c := range []struct {
		name, prompt string
		want         []string
	}{
		{"tool calls bash", "scenario:tool go", []string{`"name":"bash"`, `touch conformance-tool.txt`, `\"description\"`, `"stop_reason":"tool_use"`}},
		{"subagent calls task", "scenario:subagent go", []string{`"name":"task"`, `\"agent_type\":\"general-purpose\"`, `\"name\":\"colour\"`, SubagentPrompt}},
		{"askuser calls ask_user", "scenario:askuser go", []string{`"name":"ask_user"`, `Which colour should the button be?`, `\"enum\":[\"Teal\",\"Coral\"]`}},
		{"plain", "scenario:plain go", []string{FinalText}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, srv := newTest(t)
			status, lines := post(t, srv, "/v1/messages",
				`{"stream":true,`+tools+`,"messages":[{"role":"user","content":[{"type":"text","text":"<current_datetime>x</current_datetime>\n\n`+c.prompt+`"}]}]}`)
			all := strings.Join(lines, "\n")
			if status != 200 {
				t.Fatalf("status %d: %s", status, all)
			}
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Errorf("no %s in\n%s", w, all)
				}
			}
		})
	}
}
