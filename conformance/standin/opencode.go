package standin

import "strings"

// OpenCodeSubagentType is the agent the Subagent scenario's task call asks
// OpenCode for: its built-in general agent.
const OpenCodeSubagentType = "general"

// opencodeToolInput is the input of OpenCode's bash and task tools, which
// share GitHub Copilot CLI's names but not its inputs, for a request whose
// system prompt is OpenCode's ("You are OpenCode") or its fork Kilo Code
// CLI's ("You are Kilo, the best coding agent on the planet": 7.7.7's task
// tool refuses a call without subagent_type); nil for any other.
func opencodeToolInput(system, tool string) map[string]any {
	if !strings.Contains(system, "You are OpenCode") && !strings.Contains(system, "You are Kilo") {
		return nil
	}
	switch tool {
	case "bash":
		return map[string]any{"command": ToolCommand, "description": "Create a marker file"}
	case "task":
		return map[string]any{"description": "Colour sentence", "prompt": SubagentPrompt, "subagent_type": OpenCodeSubagentType}
	}
	return nil
}
