package standin

// GitHub Copilot CLI reaches the stand-in through its own provider setting
// (COPILOT_PROVIDER_BASE_URL with COPILOT_PROVIDER_TYPE=anthropic, and
// COPILOT_OFFLINE=true: no GitHub sign-in, no GitHub call): it sends
// Anthropic Messages requests whose shell tool is "bash" and whose
// subagent tool is "task", each with inputs of its own.

// CopilotSubagentType is the agent_type the Subagent scenario gives
// Copilot CLI's task tool: one of the types its schema lists.
const CopilotSubagentType = "general-purpose"

// copilotToolInput is the input of a call to Copilot CLI's bash or task
// tool, as its schemas require (bash: command, description; task: name,
// prompt, agent_type, description).
func copilotToolInput(tool string) map[string]any {
	if tool == "bash" {
		return map[string]any{"command": ToolCommand, "description": "Create a marker file", "mode": "sync"}
	}
	return map[string]any{"name": "colour", "description": "Colour sentence", "prompt": SubagentPrompt, "agent_type": CopilotSubagentType}
}
