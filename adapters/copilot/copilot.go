// Package copilot maps GitHub Copilot CLI's hooks to session events
// (vocabulary v1). Map is pure and tested with recorded payloads.
//
// Copilot CLI runs the command hooks of every *.json file in its user
// hooks folder (~/.copilot/hooks/, $COPILOT_HOME/hooks/) and in a
// repository's .github/hooks/, handing each hook's JSON to "notch-web hook
// copilot" on stdin. Its own event names are camelCase (sessionStart,
// preToolUse, …) with camelCase payloads that do not name their event; it
// also takes Claude Code's names and shape ({"hooks": {"PreToolUse":
// [{"hooks": [{"type": "command", "command", "timeout"}]}]}}), and then
// sends snake_case payloads that do: hook_event_name, session_id, cwd,
// and on Stop transcript_path (its session's events.jsonl). notch-web
// installs those. Two payloads keep Copilot's own keys even so:
// Notification's session is sessionId, and a subagent's own hooks name
// the subagent as session_id, with its parent in parent_agent_id; decode
// reads both.
//
// The mapping (Copilot CLI 1.0.102):
//
//	SessionStart        session.opened: cwd, project (the cwd's last segment); turn.ended completed
//	                    (the TUI fires it when the first prompt is submitted, -p at launch)
//	UserPromptSubmit    turn.started; session.titled from the prompt's first line when the row has
//	                    no title yet (hookjson.PromptTitle); inside a subagent, its row's turn
//	PreToolUse          tool.started (tool_name as Claude Code spells it: Bash, Agent,
//	                    AskUserQuestion for its ask_user, …); AskUserQuestion also
//	                    approval.requested, its message the reason (the agent asks the human)
//	PostToolUse         tool.ended: error when tool_result.result_type is "failure", else ok
//	PostToolUseFailure  tool.ended error
//	Notification        permission_prompt or elicitation_dialog: approval.requested while a turn may
//	                    be open, unless one is pending; the tool is the one out on the row, the
//	                    reason the message ("Run command: …")
//	Stop                turn.ended completed (a subagent's Stop: its row's)
//	SubagentStop        the subagent's row: turn.ended completed
//	SessionEnd          session.ended (only for a row the host holds): the row settles, done after
//	                    its Stop, error when the turn was still open (-p after a model error)
//	anything else       nothing (ErrorOccurred fires at every retry of a model call, recoverable
//	                    or not, so it cannot say a turn ended; PermissionRequest fires before the
//	                    permission rules, for calls they allow too)
//
// A pending approval is resolved by what follows it: the approved tool's
// PostToolUse (or its next PreToolUse) is allowed-once, another tool's
// cancelled, a new prompt or the turn's end clears it. An event for a
// session the host does not hold opens it from the payload; a subagent's
// hooks open its row under its parent.
//
// Ctrl-C while the model answers, and No / Esc at its permission prompt,
// fire no hook; its events.jsonl records an "abort" line at once, and the
// host ends the turn from it (Interrupted, looked at while the row works
// or asks). A model error in the TUI fires ErrorOccurred and no Stop; the
// file's "session.error" line says the turn failed (Failed). Only Stop
// names the file, so the host finds it at a first turn's start from its
// own environment (SessionFile: $COPILOT_HOME, else ~/.copilot).
//
// The same file's usage records give the context tokens and the model's
// window (Tokens, Window), and its Stop's own record, abort and
// session.error lines say how a turn ended while the host was down
// (Settled, settled.go).
//
// What Copilot CLI 1.0.102 does not tell us: a title (the row takes the
// first prompt's first line), a session before its first prompt (the TUI
// fires SessionStart only then), which error ended a turn.
package copilot

import (
	"encoding/json"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

// Agent is the adapter's name in URLs and commands:
// /agents-notch/hooks/copilot, "notch-web hook copilot".
const Agent = "copilot"

// Hook event names, as Copilot CLI takes and sends them in Claude Code's
// spelling.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	Notification       = "Notification"
	Stop               = "Stop"
	SubagentStop       = "SubagentStop"
	SessionEnd         = "SessionEnd"
)

// Events are the hooks an installer registers, in order.
var Events = []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Notification, SubagentStop, Stop, SessionEnd}

// The Notification types that mean Copilot waits on the human: its
// permission prompt, and a form (an elicitation) it shows.
const (
	PermissionPrompt  = "permission_prompt"
	ElicitationDialog = "elicitation_dialog"
)

// asksHuman are the tools whose call is the agent asking the human: its
// ask_user, which it names AskUserQuestion in Claude Code's spelling.
var asksHuman = map[string]bool{"ask_user": true, "AskUserQuestion": true}

// Map maps one hook payload. It is pure: lookup is the host's view of the
// rows. A body that is not a hook payload is a *hookjson.DecodeError
// (errors.Is hookjson.ErrPayload): a 400. An unknown hook name is no error:
// its Mapping is empty.
func Map(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
	p, err := decode(payload)
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
			b.Ask(tool, hookjson.First(p.Object("tool_input"), hookjson.MaxReason, "question", "message", "prompt"))
		}
	case PostToolUse:
		b.Progress(tool)
		if p.Object("tool_result").String("result_type") == "failure" {
			b.ToolEnded(tool, state.OutcomeError)
		} else {
			b.ToolEnded(tool, state.OutcomeOK)
		}
	case PostToolUseFailure:
		b.Progress(tool)
		b.ToolEnded(tool, state.OutcomeError)
	case Notification:
		switch p.String("notification_type") {
		case PermissionPrompt, ElicitationDialog:
			if b.MayBeInTurn() {
				t := b.ToolOut()
				if t == "" {
					t = "permission"
				}
				b.AskIfNone(t, hookjson.First(p.Fields, hookjson.MaxReason, "message", "title"))
			}
		}
	case Stop:
		b.TurnEnded(state.OutcomeCompleted)
	case SubagentStop:
		if b.Subagent() {
			b.TurnEnded(state.OutcomeCompleted)
		}
	case SessionEnd:
		b.Ended("")
	}
	// Its events.jsonl holds the context tokens and records the interrupts
	// and model errors no hook reports; a subagent's hooks name the
	// parent's file, which is the parent row's.
	if !b.Subagent() {
		b.Transcript(p.TranscriptPath)
	}
	return b.Mapping(), nil
}

// decode reads a Copilot CLI payload as hookjson.Decode reads Claude
// Code's, after naming its session and event the way Decode wants: the
// session is session_id, else sessionId (Notification's); a subagent's own
// hook, whose session_id is the subagent's own id (its agent_id), belongs
// to the session parent_agent_id names; the transcript is transcript_path,
// else transcriptPath.
func decode(payload []byte) (hookjson.Payload, error) {
	f, err := hookjson.Object(payload)
	if err != nil {
		return hookjson.Payload{}, err
	}
	set := func(key, value string) {
		b, _ := json.Marshal(value)
		f[key] = b
	}
	if _, ok := f["session_id"]; !ok && f.String("sessionId") != "" {
		set("session_id", f.String("sessionId"))
	}
	if agent, parent := f.String("agent_id"), f.String("parent_agent_id"); agent != "" && parent != "" && f.String("session_id") == agent {
		set("session_id", parent)
	}
	if _, ok := f["transcript_path"]; !ok && f.String("transcriptPath") != "" {
		set("transcript_path", f.String("transcriptPath"))
	}
	body, err := json.Marshal(f)
	if err != nil {
		return hookjson.Payload{}, &hookjson.DecodeError{Reason: "want a JSON object"}
	}
	return hookjson.Decode(body)
}
