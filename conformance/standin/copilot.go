package standin

// GitHub Copilot CLI reaches the stand-in through its own provider setting
// (COPILOT_PROVIDER_BASE_URL with COPILOT_PROVIDER_TYPE=anthropic, and
// COPILOT_OFFLINE=true: no GitHub sign-in, no GitHub call): it sends
// Anthropic Messages requests whose shell tool is "bash" and whose
// subagent tool is "task", each with inputs of its own.

// CopilotSubagentType is the agent_type the Subagent scenario gives
// Copilot CLI's task tool: one of the types its schema lists.
const CopilotSubagentType = "general-purpose"

// copilotToolInput is the input of a call to Copilot CLI's bash, task or
// ask_user tool, as its schemas require (bash: command, description;
// task: name, prompt, agent_type, description; ask_user: message and a
// form, requestedSchema, here one single-choice field).
func copilotToolInput(tool string) map[string]any {
	switch tool {
	case "bash":
		return map[string]any{"command": ToolCommand, "description": "Create a marker file", "mode": "sync"}
	case "ask_user":
		return map[string]any{"message": AskQuestion, "requestedSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"colour": map[string]any{"type": "string", "title": "Colour", "enum": AskOptions}},
			"required":   []string{"colour"},
		}}
	}
	return map[string]any{"name": "colour", "description": "Colour sentence", "prompt": SubagentPrompt, "agent_type": CopilotSubagentType}
}
