// Package qwen maps Qwen Code's hooks to session events (vocabulary v1).
//
// Qwen Code is a Gemini CLI fork, but it did not keep Gemini CLI's hooks:
// 0.24 took Claude Code's (PreToolUse, PermissionRequest, Stop, …, with
// Claude Code's payloads and its settings.json shape, timeouts in seconds).
// So its mapping is Claude Code's (claudecode.Dialect) with Qwen's
// differences as data:
//
//   - its question and plan tools are ask_user_question and exit_plan_mode;
//   - after a tool's results it fires UserPromptSubmit again with an empty
//     prompt (and no submitted_prompt): the same turn, not a new one;
//   - its Stop carries the turn's last prompt size (input_tokens) and the
//     model's window (context_limit): the row's context tokens and the
//     window its bar is drawn against (Mapping.Window), from the hook, not
//     a transcript;
//   - in its TUI, idle_prompt comes each time it is back at its prompt,
//     after Stop or StopFailure and after an Esc or a refused tool, which
//     fire nothing else: a turn still open then ends (Interrupted);
//   - its transcript_path is its own chat file (not Claude Code's
//     format): the host reads from it a call refused at its dialog
//     (Interrupted: the file's word, where idle_prompt did not come) and
//     how a turn ended while it was down (Settled); a subagent's hooks
//     name no file of its own.
//
// Every hook is a command hook ("notch-web hook qwen"): Qwen Code's http
// hooks refuse private and loopback hosts unless told otherwise, and a
// command hook names the agent's process (Notch-Proc) for the host to
// watch.
//
// What Qwen Code 0.24.4 does not tell a hook (docs/agents.md): headless
// (-p) an API error fires no StopFailure and the process exits without a
// SessionEnd (the host sees the process go: the row ends in error); a
// session's title (the row takes the first prompt's first line).
package qwen

import (
	"github.com/notch-web/notch-web/adapters/claudecode"
	"github.com/notch-web/notch-web/adapters/hookjson"
)

// Agent is the adapter's name in URLs and commands:
// /agents-notch/hooks/qwen, "notch-web hook qwen".
const Agent = "qwen"

// Events are the hooks this adapter maps, in the order an installer lists
// them: Claude Code's names.
var Events = claudecode.Events

// Dialect is Qwen Code's hooks, in Claude Code's shape.
var Dialect = claudecode.Dialect{
	AsksHuman:     map[string]bool{"ask_user_question": true, "exit_plan_mode": true},
	Question:      "ask_user_question",
	Plan:          "exit_plan_mode",
	Continuations: true,
	StopTokens:    true,
	IdlePrompt:    true,
}

// Map maps one hook payload (pure; see claudecode.Dialect.Map).
func Map(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
	return Dialect.Map(payload, lookup)
}
