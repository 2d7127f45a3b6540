package standin

import (
	"strings"
	"testing"
)

// TestOpenCodeToolInput: OpenCode's system prompt gets OpenCode's inputs
// for bash and task (its task takes subagent_type); any other request
// keeps the inputs of the agent it is (Copilot's bash and task).
func TestOpenCodeToolInput(t *testing.T) {
	sys := "You are OpenCode, the best coding agent on the planet."
	if in := opencodeToolInput(sys, "task"); in["subagent_type"] != OpenCodeSubagentType || in["prompt"] != SubagentPrompt {
		t.Errorf("task: %v", in)
	}
	if in := opencodeToolInput(sys, "bash"); in["command"] != ToolCommand || in["mode"] != nil {
		t.Errorf("bash: %v", in)
	}
	if in := opencodeToolInput("You are Kilo, the best coding agent on the planet.", "task"); in["subagent_type"] != OpenCodeSubagentType {
		t.Errorf("Kilo's task input: %v", in)
	}
	if in := opencodeToolInput("You are GitHub Copilot", "task"); in != nil {
		t.Errorf("another agent's request: %v", in)
	}
}

// TestOpenCodeSubagentCall: a Messages request as OpenCode sends it (its
// system prompt in the top-level system field, its tools bash and task)
// gets a task call OpenCode's schema takes: with subagent_type.
func TestOpenCodeSubagentCall(t *testing.T) {
	_, srv := newTest(t)
	body := `{"model":"m","stream":true,"system":[{"type":"text","text":"You are OpenCode, the best coding agent on the planet."}],` +
		`"tools":[{"name":"bash"},{"name":"task"}],"messages":[{"role":"user","content":"scenario:subagent Ask a helper."}]}`
	_, lines := post(t, srv, "/v1/messages", body)
	if got := strings.Join(lines, "\n"); !strings.Contains(got, `\"subagent_type\":\"general\"`) {
		t.Errorf("the task call's input has no subagent_type general:\n%s", got)
	}
}

// TestPromptAfterResult: a prompt that comes in one user message with a
// refused call's result (OpenCode's next prompt after a Reject) is the
// request's Prompt.
func TestPromptAfterResult(t *testing.T) {
	s, srv := newTest(t)
	body := `{"model":"m","messages":[{"role":"user","content":"scenario:tool go"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"bash","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":"rejected","is_error":true},{"type":"text","text":"scenario:plain Reply"}]}]}`
	post(t, srv, "/v1/messages", body)
	if r := s.Requests(); len(r) != 1 || strings.TrimSpace(r[0].Prompt) != "scenario:plain Reply" || len(r[0].Results) != 1 {
		t.Errorf("requests %+v", r)
	}
}
