// Package pi is Pi (@mariozechner/pi-coding-agent) to notch-web. Pi has no
// hooks in a settings file; it loads TypeScript extensions from
// ~/.pi/agent/extensions/ and a project's .pi/extensions/, which receive its
// lifecycle events. notch-web writes one there (extension.ts, a file it
// owns whole): it POSTs a few events, cut down, to the host's
// /agents-notch/hooks/pi, in order. Each payload is
//
//	{"hook_event_name": <Pi's event>, "session_id": <its session id>,
//	 "transcript_path": <its session file>, "cwd": <its cwd>,
//	 "properties": {<the fields below>}}
//
// The mapping:
//
//	session_start         session.opened; turn.ended completed: the session waits for a prompt
//	before_agent_start    turn.started; the row's title from the prompt's first line
//	tool_execution_start  tool.started (toolName)
//	tool_execution_end    tool.ended, error when isError
//	message_end           context.tokens: the assistant message's usage input + cacheRead +
//	                      cacheWrite, when > 0
//	agent_end             turn.ended by the last assistant message's stopReason: error is
//	                      error, aborted the human's interrupt (completed), anything else
//	                      completed
//	session_shutdown      session.ended: the row settles (quit, or a switch to another
//	                      session: /new, /resume, /fork)
//	anything else         nothing
//
// Pi asks no permission (its README: "No permission popups"): a row of Pi
// never needs you. It runs no subagents of its own, and titles nothing
// itself. Its session file (Settled, settled.go) says how a turn ended
// while the host was down.
package pi

import (
	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

// Agent is the adapter's name in URLs and commands:
// /agents-notch/hooks/pi, "notch-web hook pi".
const Agent = "pi"

// The events the extension forwards, by Pi's names.
const (
	SessionStart     = "session_start"
	BeforeAgentStart = "before_agent_start"
	ToolStart        = "tool_execution_start"
	ToolEnd          = "tool_execution_end"
	MessageEnd       = "message_end"
	AgentEnd         = "agent_end"
	SessionShutdown  = "session_shutdown"
)

// Events are the events the extension forwards, in order.
var Events = []string{SessionStart, BeforeAgentStart, ToolStart, ToolEnd, MessageEnd, AgentEnd, SessionShutdown}

// Stop reasons of an assistant message (Pi's AssistantMessage.stopReason).
const (
	stopError   = "error"
	stopAborted = "aborted"
	stopToolUse = "toolUse"
)

// Map maps one payload of the extension. It is pure: lookup is the host's
// view of the rows. A body that is not such a payload is a
// *hookjson.DecodeError (errors.Is hookjson.ErrPayload): a 400. An unknown
// event is no error: its Mapping is empty.
func Map(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
	p, err := hookjson.Decode(payload)
	if err != nil {
		return hookjson.Mapping{}, err
	}
	b := hookjson.NewBuilder(p, lookup)
	b.Transcript(p.TranscriptPath)
	props := p.Object("properties")
	switch p.Event {
	case SessionStart:
		b.Started("", "")
	case BeforeAgentStart:
		b.TurnStarted()
		b.PromptTitle(props.String("prompt"))
	case ToolStart:
		if b.Working() {
			b.ToolStarted(props.String("toolName"))
		}
	case ToolEnd:
		if b.Working() {
			outcome := state.OutcomeOK
			if props.Bool("isError") {
				outcome = state.OutcomeError
			}
			b.ToolEnded(props.String("toolName"), outcome)
		}
	case MessageEnd:
		u := props.Object("usage")
		in, _ := u.Count("input")
		read, _ := u.Count("cacheRead")
		write, _ := u.Count("cacheWrite")
		b.Tokens(in + read + write)
	case AgentEnd:
		if !b.Working() {
			break
		}
		switch props.String("stopReason") {
		case stopError:
			b.TurnEnded(state.OutcomeError)
		case stopAborted:
			b.Interrupted("")
		default:
			b.TurnEnded(state.OutcomeCompleted)
		}
	case SessionShutdown:
		b.Ended("")
	}
	return b.Mapping(), nil
}
