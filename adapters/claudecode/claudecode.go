// Package claudecode maps Claude Code's hooks to session events (vocabulary
// v1): Map is pure and tested with recorded payloads; ContextTokens
// (transcript.go) is the one piece of I/O, reading a transcript's tail for
// the latest context size.
//
// Claude Code POSTs each hook's JSON as it is (an "http" hook) or hands it
// to a command on stdin ("notch-web hook claude-code"). Every payload has
// session_id, transcript_path, cwd and hook_event_name; inside a subagent
// also agent_id and agent_type, and then the hook drives the subagent's own
// row (hookjson.SubagentID), never its parent's.
//
// The mapping, hook by hook:
//
//	SessionStart        session.opened: cwd, project (the cwd's last segment), title from session_title;
//	                    then, unless source is "compact", turn.ended completed: the session waits for
//	                    its first prompt (done, never working). Installed as a command hook: Claude
//	                    Code skips http hooks for SessionStart
//	UserPromptSubmit    turn.started; session.titled from the prompt's first line when the row has
//	                    no title yet (hookjson.PromptTitle)
//	PreToolUse          tool.started; for AskUserQuestion and ExitPlanMode also approval.requested
//	                    (the agent asks the human), with the question or the plan's first line as reason
//	PermissionRequest   approval.requested: tool_name, reason from tool_input (description, else
//	                    command, else path; one line, ≤ 200 bytes)
//	PostToolUse         tool.ended ok
//	PostToolUseFailure  tool.ended error; with is_interrupt: tool.ended ok, then turn.ended completed
//	PermissionDenied    approval.resolved rejected, then tool.ended error
//	Notification        permission_prompt: approval.requested, only inside a turn (working) and when
//	                    none is pending (it comes ~6 s after the prompt, usually after
//	                    PermissionRequest, sometimes after the turn's Stop); other types: nothing
//	SubagentStart       the subagent's row: session.opened (origin subagent, parent, title its
//	                    agent_type), turn.started
//	SubagentStop        turn.ended completed on the subagent's row, when the board holds it
//	                    (/compact's internal agent has a SubagentStop and no SubagentStart: no row)
//	Stop                turn.ended completed
//	StopFailure         turn.ended error, and why (Mapping.Why: its error code and its words)
//	SessionEnd          session.ended (only for a row the host holds): the row settles, done after
//	                    its Stop, error when the turn was still open; its subagents settle too
//	anything else       nothing (Claude Code adds hooks; they are accepted and ignored)
//
// A pending approval is resolved by what follows it: the approved tool's
// PreToolUse, PostToolUse or PostToolUseFailure emits approval.resolved
// allowed-once first; another tool's emits cancelled (the request went away
// and we did not see how); a new prompt or the turn's end clears it in the
// fold. An event for a session the host does not hold opens it from the
// payload first (Mapping.Open). Hooks with a transcript_path name it
// (Mapping.Transcript) so the host can read the context tokens.
//
// What Claude Code does not tell a hook, and so the board cannot know:
//   - A "no" at Claude Code's own permission prompt fires no hook
//     (PermissionDenied is only for auto mode's classifier). The turn stops
//     without a Stop, so the row keeps its approval until the next prompt.
//     Likewise an Esc that interrupts the model (not a tool) sends no Stop.
//   - A session's title, unless it was started with one (session_title).
//   - Which tool a permission_prompt notification is about: the tool that
//     is out on the row, else the one named in its message, else "permission".
//   - A subagent's row stays done after its SubagentStop; its session's
//     SessionEnd settles it, and the session's close-out (✕, a mark, or
//     retire) takes it along.
//   - The context budget (docs/contract.md rule 1): only the row gives it.
package claudecode

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/internal/ascii"
	"github.com/notch-web/notch-web/state"
)

// Agent is the adapter's name in URLs and commands:
// /agents-notch/hooks/claude-code, "notch-web hook claude-code".
const Agent = "claude-code"

// Hook event names, as Claude Code sends them.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PreToolUse         = "PreToolUse"
	PermissionRequest  = "PermissionRequest"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	PermissionDenied   = "PermissionDenied"
	Notification       = "Notification"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
	Stop               = "Stop"
	StopFailure        = "StopFailure"
	SessionEnd         = "SessionEnd"
)

// Events are the hooks this adapter maps, in the order an installer lists
// them.
var Events = []string{
	SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure,
	PermissionDenied, Notification, SubagentStart, SubagentStop, Stop, StopFailure, SessionEnd,
}

// Dialect is one agent's hooks in Claude Code's shape: the same events,
// payloads and meanings, with the differences as data. Claude Code's is
// Claude; Qwen Code (adapters/qwen), a Gemini CLI fork that took Claude
// Code's hooks, has its own.
type Dialect struct {
	// AsksHuman are the tools whose call is the agent asking the human, not
	// doing something: their PreToolUse is an approval request. Question
	// and Plan are the two whose reason is read from their input.
	AsksHuman      map[string]bool
	Question, Plan string
	// Continuations: the agent fires UserPromptSubmit with an empty prompt
	// when it sends the model a tool's results (Qwen Code): no new turn.
	Continuations bool
	// StopTokens: Stop carries the turn's last prompt size, input_tokens,
	// and the model's window, context_limit (Qwen Code); else the context
	// is read from the transcript.
	StopTokens bool
	// IdlePrompt: the agent's idle_prompt notification comes each time it
	// is back at its prompt (Qwen Code's TUI, at once; Claude Code's only
	// after a minute, and it is not installed for it): a turn still open
	// then was interrupted or refused, which no other hook says.
	IdlePrompt bool
	// SubagentTranscripts: a subagent has a transcript of its own, named
	// by agent_transcript_path or beside its session's (Claude Code 2.1);
	// else a subagent's hooks name none (Qwen Code's agent_transcript_path
	// is its session's chat file).
	SubagentTranscripts bool
}

// Claude is Claude Code's dialect.
var Claude = Dialect{
	AsksHuman: map[string]bool{"AskUserQuestion": true, "ExitPlanMode": true},
	Question:  "AskUserQuestion", Plan: "ExitPlanMode",
	SubagentTranscripts: true,
}

// Map maps one Claude Code hook payload (Claude.Map).
func Map(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
	return Claude.Map(payload, lookup)
}

// Map maps one hook payload. It is pure: lookup is the host's view of the
// rows (hookjson.Lookup) and the only thing it reads. A body that is not a
// hook payload is a *hookjson.DecodeError (errors.Is hookjson.ErrPayload):
// a 400. An unknown hook_event_name is no error: its Mapping is empty.
func (d Dialect) Map(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
	p, err := hookjson.Decode(payload)
	if err != nil {
		return hookjson.Mapping{}, err
	}
	b := hookjson.NewBuilder(p, lookup)
	tool := p.String("tool_name")
	switch p.Event {
	case SessionStart:
		b.Started(p.String("session_title"), p.String("source"))
	case UserPromptSubmit:
		if d.Continuations && p.String("prompt") == "" && !p.Fields.Given("submitted_prompt") {
			break
		}
		b.TurnStarted()
		b.PromptTitle(p.String("prompt"))
	case PreToolUse:
		b.Progress(tool)
		b.ToolStarted(tool)
		if d.AsksHuman[tool] {
			b.Ask(tool, d.reason(tool, p.Fields["tool_input"]))
		}
	case PermissionRequest:
		b.Ask(tool, d.reason(tool, p.Fields["tool_input"]))
	case PostToolUse:
		b.Progress(tool)
		b.ToolEnded(tool, state.OutcomeOK)
	case PostToolUseFailure:
		b.Progress(tool)
		if p.Bool("is_interrupt") {
			b.Interrupted(tool)
		} else {
			b.ToolEnded(tool, state.OutcomeError)
		}
	case PermissionDenied:
		b.Resolve(state.OutcomeRejected)
		b.ToolEnded(tool, state.OutcomeError)
	case Notification:
		// Only inside a turn: the notification comes ~6 s after the prompt,
		// and a turn that has ended since (a Stop) has no prompt open.
		switch p.String("notification_type") {
		case "permission_prompt":
			if b.MayBeInTurn() {
				msg := p.String("message")
				b.AskIfNone(promptTool(b.ToolOut(), msg), msg)
			}
		case "idle_prompt":
			if d.IdlePrompt && b.Held() && b.MayBeInTurn() {
				b.Interrupted("")
			}
		}
	case SubagentStart:
		if b.Subagent() {
			b.Opened("")
			b.TurnStarted()
		}
	case SubagentStop:
		// Only a subagent the board holds: Claude Code 2.1.328 runs /compact
		// as an internal agent whose SubagentStop comes with an agent_id
		// and no SubagentStart — it is no row of anyone's.
		if b.Subagent() && b.Held() {
			b.TurnEnded(state.OutcomeCompleted)
		}
	case Stop:
		if d.StopTokens && !b.Subagent() {
			if n, ok := p.Fields.Count("input_tokens"); ok {
				b.Tokens(n)
			}
			if n, ok := p.Fields.Count("context_limit"); ok {
				b.Window(n)
			}
		}
		b.TurnEnded(state.OutcomeCompleted)
	case StopFailure:
		// error is a code (rate_limit, authentication_failed, server_error,
		// invalid_request, …, unknown); the words are the agent's last
		// message ("API Error: Request rejected (429) · …"), and
		// error_details (the provider's raw body, when given) is read
		// for the kind and a reset, not shown.
		words, details := p.String("last_assistant_message"), p.String("error_details")
		if words == "" {
			words, details = details, ""
		}
		b.Failed(p.String("error"), words, details)
	case SessionEnd:
		b.Ended("")
	}
	// A subagent's hooks name its parent's transcript; its own is
	// agent_transcript_path (SubagentStop), else beside the parent's.
	if b.Subagent() {
		if d.SubagentTranscripts {
			b.SubagentTranscript(subagentTranscript(p))
		}
	} else {
		b.Transcript(p.TranscriptPath)
	}
	return b.Mapping(), nil
}

// agentID is what a subagent's id may be to name a file: Claude Code's are
// hex ("a7c1f2…"); anything else is not turned into a path.
var agentID = ascii.NewSet(ascii.Alnum, "_-")

// subagentTranscript is a subagent's own transcript: agent_transcript_path
// when the hook gives it (SubagentStop), else
// "<session transcript without .jsonl>/subagents/agent-<agent_id>.jsonl",
// where Claude Code 2.1 writes it. "" when neither can be named.
func subagentTranscript(p hookjson.Payload) string {
	if path := p.String("agent_transcript_path"); path != "" {
		return path
	}
	parent, ok := strings.CutSuffix(p.TranscriptPath, ".jsonl")
	if !ok || parent == "" || !agentID.Span(p.AgentID, 1, 128) {
		return ""
	}
	return parent + "/subagents/agent-" + p.AgentID + ".jsonl"
}

// reason is an approval's one-line reason: for a question, the question;
// for a plan, its first line; otherwise the shared rule
// (hookjson.Reason: description, else command, else path).
func (d Dialect) reason(tool string, input json.RawMessage) string {
	switch tool {
	case "":
	case d.Question:
		if s := hookjson.FirstQuestion(input); s != "" {
			return s
		}
	case d.Plan:
		var in struct {
			Plan string `json:"plan"`
		}
		if json.Unmarshal(input, &in) == nil {
			for line := range strings.Lines(in.Plan) {
				if s := hookjson.OneLine(strings.TrimLeft(line, "# "), hookjson.MaxReason); s != "" {
					return s
				}
			}
		}
	}
	return hookjson.Reason(input)
}

// permissionTo finds the tool in Claude Code's permission_prompt message,
// "Claude needs your permission to use Bash".
var permissionTo = regexp.MustCompile(`permission to use (\S+)`)

// promptTool is the tool a permission_prompt notification is about: the
// tool out on the row, else the one its message names, else "permission".
func promptTool(out, message string) string {
	if out != "" {
		return out
	}
	if m := permissionTo.FindStringSubmatch(message); m != nil {
		return m[1]
	}
	return "permission"
}
