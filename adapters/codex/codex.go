// Package codex maps OpenAI Codex's hooks and its notify program's
// notifications to session events (vocabulary v1). Map is pure and tested
// with recorded payloads.
//
// Codex reaches notch-web two ways, both through "notch-web hook codex":
//
//   - Its lifecycle hooks (~/.codex/hooks.json, or [hooks] in config.toml;
//     on by default since Codex 0.124, earlier behind [features]
//     codex_hooks = true) hand each hook's JSON to a command on stdin. They
//     are named like Claude Code's and carry session_id, transcript_path,
//     cwd, hook_event_name, model, permission_mode and, at turn scope,
//     turn_id; inside a subagent also agent_id and agent_type.
//   - Its notify program gets one JSON argument when a turn completes:
//     {"type": "agent-turn-complete", "thread-id", "turn-id", "cwd",
//     "input-messages", "last-assistant-message"}. The thread id is the
//     session id the hooks carry, so both drive the same row.
//
// The mapping:
//
//	SessionStart         session.opened: cwd, project (the cwd's last segment); turn.ended completed
//	                     (waiting for a prompt) unless source is "compact"
//	UserPromptSubmit     turn.started; session.titled from the prompt's first line when the row has
//	                     no title yet (hookjson.PromptTitle)
//	PreToolUse           tool.started; request_user_input also approval.requested (the agent asks: its first question)
//	PermissionRequest    approval.requested: tool_name, reason from tool_input (description, else command)
//	PostToolUse          tool.ended ok
//	Stop                 turn.ended completed
//	StopFailure          turn.ended error
//	Interrupt            the tool out ends ok, turn.ended completed
//	SubagentStart/Stop   the subagent's row (origin subagent, under its parent): opened and
//	                     turn.started / turn.ended completed; hooks with its agent_id drive it
//	SessionEnd           session.ended (only for a row the host holds): the row settles, done after
//	                     its Stop, error when the turn was still open (a model error ends the
//	                     session with no Stop)
//	agent-turn-complete  turn.ended completed (notify), only for a row the host holds: the TUI's
//	                     title-generation helper thread notifies with its own thread id
//	anything else        nothing
//
// A pending approval is resolved as for Claude Code: the approved tool
// running next is allowed-once, another tool cancelled, a new prompt or the
// turn's end clears it. An event for a session the host does not hold opens
// it from the payload.
//
// In Codex 0.169 an Esc (a "no") at its approval prompt fires Interrupt:
// the approval clears and the turn ends, done, for Codex waits on the
// human. What Codex does not tell us: a tool's failure (PostToolUse comes
// for every call that ran, so every result reads ok), which model error
// ended a run (a SessionEnd with no Stop: the row settles as an error), a
// title (the row takes the first prompt's first line; the TUI's own title
// comes from a helper thread no hook sees), and the context tokens (its
// transcript is a rollout in its own format, not read here). Hooks run only
// once a human has trusted them (see install). The budget comes only from
// the row (docs/contract.md rule 1).
package codex

import (
	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

// Agent is the adapter's name in URLs and commands:
// /agents-notch/hooks/codex, "notch-web hook codex".
const Agent = "codex"

// Hook event names, as Codex sends them.
const (
	SessionStart      = "SessionStart"
	UserPromptSubmit  = "UserPromptSubmit"
	PreToolUse        = "PreToolUse"
	PermissionRequest = "PermissionRequest"
	PostToolUse       = "PostToolUse"
	Stop              = "Stop"
	StopFailure       = "StopFailure"
	Interrupt         = "Interrupt"
	SubagentStart     = "SubagentStart"
	SubagentStop      = "SubagentStop"
	SessionEnd        = "SessionEnd"
)

// TurnComplete is the notify program's notification type.
const TurnComplete = "agent-turn-complete"

// Events are the hooks an installer registers: Codex 0.169's that the
// board needs. Interrupt is the only sign of an Esc at an approval, and
// SessionEnd the only sign of a run that ended on a model error (no Stop);
// SubagentStart and SubagentStop give a subagent its own row under its
// parent (its other hooks carry its agent_id), which the parent's
// SessionEnd settles. An older Codex ignores the names it does not know.
// (StopFailure is understood when registered by hand: 0.169 has none.)
var Events = []string{SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, SubagentStart, SubagentStop, Stop, Interrupt, SessionEnd}

// asksHuman are the tools whose call is the agent asking the human.
var asksHuman = map[string]bool{"request_user_input": true}

// Map maps one hook payload or one notify notification. It is pure: lookup
// is the host's view of the rows. A body that is neither is a
// *hookjson.DecodeError (errors.Is hookjson.ErrPayload): a 400. An unknown
// hook name or notification type is no error: its Mapping is empty.
func Map(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
	f, err := hookjson.Object(payload)
	if err != nil {
		return hookjson.Mapping{}, err
	}
	if _, hook := f["hook_event_name"]; !hook && f.String("type") != "" {
		return notify(f, lookup)
	}
	p, err := hookjson.Decode(payload)
	if err != nil {
		return hookjson.Mapping{}, err
	}
	b := hookjson.NewBuilder(p, lookup)
	tool := p.String("tool_name")
	switch p.Event {
	case SessionStart:
		b.Started("", p.String("source"))
	case UserPromptSubmit:
		b.TurnStarted()
		b.PromptTitle(p.String("prompt"))
	case PreToolUse:
		b.Progress(tool)
		b.ToolStarted(tool)
		if asksHuman[tool] {
			// 0.169's arguments are {"questions":[{"id","header",
			// "question","options"}]}: the first question is the reason.
			why := hookjson.FirstQuestion(p.Fields["tool_input"])
			if why == "" {
				why = hookjson.First(p.Object("tool_input"), hookjson.MaxReason, "question", "prompt", "message", "description")
			}
			b.Ask(tool, why)
		}
	case PermissionRequest:
		b.Ask(tool, hookjson.Reason(p.Fields["tool_input"]))
	case PostToolUse:
		b.Progress(tool)
		b.ToolEnded(tool, state.OutcomeOK)
	case Stop:
		b.TurnEnded(state.OutcomeCompleted)
	case StopFailure:
		b.TurnEnded(state.OutcomeError)
	case Interrupt:
		b.Interrupted("")
	case SubagentStart:
		if b.Subagent() {
			b.Opened("")
			b.TurnStarted()
		}
	case SubagentStop:
		if b.Subagent() {
			b.TurnEnded(state.OutcomeCompleted)
		}
	case SessionEnd:
		b.Ended("")
	}
	// Its rollout's token_count lines carry the plan's windows and the
	// thread's tokens (Plan): named at a turn's end and after each tool,
	// where a model response has just been written, for the main thread.
	if (p.Event == Stop || p.Event == PostToolUse) && p.AgentID == "" {
		b.Transcript(p.TranscriptPath)
	}
	return b.Mapping(), nil
}

// notify maps a notify notification: a completed turn of thread-id.
func notify(f hookjson.Fields, lookup hookjson.Lookup) (hookjson.Mapping, error) {
	if f.String("type") != TurnComplete {
		return hookjson.Mapping{}, nil
	}
	p := hookjson.Payload{Fields: f, SessionID: f.String("thread-id"), Cwd: f.String("cwd")}
	if p.SessionID == "" {
		return hookjson.Mapping{}, &hookjson.DecodeError{Reason: "a notification without a string thread-id"}
	}
	b := hookjson.NewBuilder(p, lookup)
	// Only for a session the board holds (its hooks opened it): the TUI's
	// title-generation helper thread sends agent-turn-complete with a
	// thread id no hook ever names, and must not become a ghost done row.
	if b.Held() {
		b.TurnEnded(state.OutcomeCompleted)
	}
	return b.Mapping(), nil
}
