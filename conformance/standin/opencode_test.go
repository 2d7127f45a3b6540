package standin

import "testing"

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
	if in := opencodeToolInput("You are GitHub Copilot", "task"); in != nil {
		t.Errorf("another agent's request: %v", in)
	}
}
