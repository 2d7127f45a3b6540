// Package ocplugin is what OpenCode and its forks (Kilo Code CLI) share:
// the plugin notch-web writes into their plugin folder (plugin.js, one
// source for every fork, named for the agent it is installed for), the map
// of the events it forwards (Map), and the read of their SQLite database
// that says how a turn ended while the host was down (SettledIn).
//
// OpenCode has no hooks in a settings file; it loads plugins (JS/TS files)
// from its plugin folders. The plugin receives every event of the agent's
// bus and POSTs a few of them, cut down, to the host's
// /agents-notch/hooks/<agent>, in order. Each payload is
//
//	{"hook_event_name": <OpenCode's event type>, "session_id": <its sessionID>,
//	 "parent_id": <the root session of a child session, else "">,
//	 "cwd": <the project's directory>, "properties": {<the fields below>}}
//
// The mapping:
//
//	session.created       session.opened (cwd, project, the agent's title unless it is its
//	                      placeholder "New session - <time>"); turn.ended completed: the
//	                      session waits for a prompt. A child session (the task tool's
//	                      subagent; parent_id set) is a subagent row under its root's
//	session.updated       session.titled: the agent's generated title, when it changed
//	session.status        busy: turn.started, unless the row is in a turn already (busy
//	                      comes at every step); idle: as session.idle; retry: nothing
//	session.idle          turn.ended completed, when the row is in a turn
//	session.error         turn.ended error (an API error) and why (its name and message); a MessageAbortedError is the
//	                      human's interrupt: the tool out ends ok, the turn completed
//	message.updated       context.tokens: the assistant message's input + cache read +
//	                      cache write tokens (the context the model was given), when > 0
//	message.part.updated  a tool part, while the row is in a turn: running is tool.started,
//	                      completed tool.ended ok, error tool.ended error
//	permission.asked      approval.requested: the tool out (else the permission's name),
//	                      the reason its command, file path, url or first pattern
//	permission.replied    approval.resolved: once and always are allowed-once, reject
//	                      rejected
//	notch-web.permission  nothing (the plugin's own: a permission.asked sent again, outside the
//	                      queue, for the host's approvals to hold: host/approvals_opencode.go)
//	notch-web.dispose     session.ended (the plugin's own, from the agent's dispose at exit):
//	                      the row settles; a turn still open is an error
//	anything else         nothing
//
// A pending approval is resolved only by permission.replied (sent for
// every answer, the agent's own auto-reject in "run" too), a turn's end or
// the session's: a tool part says nothing of it, for the call's running
// part can come after the ask it raised. An event for a session the host
// does not hold opens it from the payload.
package ocplugin

import (
	"encoding/json"
	"strings"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

// The events the plugin forwards, by OpenCode's names (and the plugin's
// own Dispose). Kilo Code CLI, a fork, keeps the names.
const (
	SessionCreated    = "session.created"
	SessionUpdated    = "session.updated"
	SessionStatus     = "session.status"
	SessionIdle       = "session.idle"
	SessionError      = "session.error"
	MessageUpdated    = "message.updated"
	MessagePart       = "message.part.updated"
	PermissionAsked   = "permission.asked"
	PermissionReplied = "permission.replied"
	// Dispose is the plugin's own: OpenCode disposed of the project's
	// instance, which it does as its process ends.
	Dispose = "notch-web.dispose"
	// Ask is the plugin's own: a permission.asked sent again, outside the
	// queue, as a request the host holds while the board may answer
	// (host/approvals_opencode.go); the answer's JSON is what the plugin turns into
	// OpenCode's permission reply. Map makes nothing of it: the queue's
	// permission.asked is the row's.
	Ask = "notch-web.permission"
)

// Events are the events the plugin forwards, in order.
var Events = []string{SessionCreated, SessionUpdated, SessionStatus, SessionIdle, SessionError, MessageUpdated, MessagePart, PermissionAsked, PermissionReplied, Dispose}

// Aborted is the error of a turn the human interrupted (Esc in the TUI,
// the server's abort).
const Aborted = "MessageAbortedError"

// placeholders are the titles OpenCode gives a session before it has
// generated one ("New session - 2026-12-03T16:46:38.163Z").
var placeholders = []string{"New session - ", "Child session - "}

// Map maps one payload of the plugin. It is pure: lookup is the host's view
// of the rows. A body that is not such a payload is a *hookjson.DecodeError
// (errors.Is hookjson.ErrPayload): a 400. An unknown event is no error: its
// Mapping is empty.
func Map(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
	p, err := hookjson.Decode(payload)
	if err != nil {
		return hookjson.Mapping{}, err
	}
	p = Rows(p)
	b := hookjson.NewBuilder(p, lookup)
	props := p.Object("properties")
	switch p.Event {
	case SessionCreated:
		b.Started(title(props.String("title")), "")
	case SessionUpdated:
		b.Title(title(props.String("title")))
	case SessionStatus:
		switch props.Object("status").String("type") {
		case "busy":
			if !b.Working() {
				b.TurnStarted()
			}
		case "idle":
			idle(b)
		}
	case SessionIdle:
		idle(b)
	case SessionError:
		if !b.Working() {
			break
		}
		e := props.Object("error")
		if e.String("name") == Aborted {
			b.Interrupted("")
		} else {
			b.Failed(e.String("name"), e.String("message"))
		}
	case MessageUpdated:
		t := props.Object("info").Object("tokens")
		in, _ := t.Count("input")
		read, _ := t.Object("cache").Count("read")
		write, _ := t.Object("cache").Count("write")
		b.Tokens(in + read + write)
	case MessagePart:
		part := props.Object("part")
		tool := part.String("tool")
		// A call that ends after its turn did (aborted by the human's
		// interrupt) is no news.
		if part.String("type") != "tool" || !b.Working() {
			break
		}
		// No Progress: a call's running part can come after the ask it
		// raised (seen in the TUI), and parallel calls run on while one
		// asks; permission.replied always comes, and says how it ended.
		switch part.Object("state").String("status") {
		case "running":
			b.ToolStarted(tool)
		case "completed":
			b.ToolEnded(tool, state.OutcomeOK)
		case "error":
			b.ToolEnded(tool, state.OutcomeError)
		}
	case PermissionAsked:
		if !b.MayBeInTurn() {
			break
		}
		tool := b.ToolOut()
		if tool == "" {
			tool = props.String("permission")
		}
		if tool == "" {
			tool = "permission"
		}
		b.AskIfNone(tool, Reason(props))
	case PermissionReplied:
		if _, ok := b.Pending(); !ok {
			break
		}
		switch props.String("reply") {
		case "once", "always":
			b.Resolve(state.OutcomeAllowedOnce)
		case "reject":
			b.Resolve(state.OutcomeRejected)
		default:
			b.Resolve(state.OutcomeCancelled)
		}
	case Dispose:
		b.Ended("")
	}
	return b.Mapping(), nil
}

// Rows makes a child session's payload its root's subagent (the Builder's
// subagent row, agent_id, under the root's), as the host's rows are.
func Rows(p hookjson.Payload) hookjson.Payload {
	if parent := p.String("parent_id"); parent != "" && parent != p.SessionID {
		p.AgentID, p.SessionID = p.SessionID, parent
	}
	return p
}

// idle ends the turn the row is in: OpenCode's session loop has stopped.
func idle(b *hookjson.Builder) {
	if b.Working() {
		b.TurnEnded(state.OutcomeCompleted)
	}
}

// title is OpenCode's title for a session, "" while it is a placeholder.
func title(t string) string {
	for _, p := range placeholders {
		if strings.HasPrefix(t, p) {
			return ""
		}
	}
	return t
}

// Reason is a permission's one line (bounded by hookjson.MaxReason): its
// command, file path or url, else its first pattern.
func Reason(props hookjson.Fields) string {
	if r := hookjson.First(props.Object("metadata"), hookjson.MaxReason, "command", "filepath", "url"); r != "" {
		return r
	}
	var patterns []string
	if raw := props["patterns"]; len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &patterns); err == nil && len(patterns) > 0 {
			return hookjson.OneLine(patterns[0], hookjson.MaxReason)
		}
	}
	return ""
}
