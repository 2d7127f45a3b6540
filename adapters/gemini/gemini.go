// Package gemini maps Gemini CLI's hooks to session events (vocabulary v1).
// Map is pure and tested with recorded payloads.
//
// Gemini CLI runs command hooks from the "hooks" object of its settings.json
// (~/.gemini/settings.json, a project's .gemini/settings.json), handing each
// hook's JSON to "notch-web hook gemini" on stdin. Every payload has
// session_id, transcript_path, cwd, hook_event_name and timestamp.
//
// The mapping:
//
//	SessionStart   session.opened: cwd, project (the cwd's last segment); turn.ended completed
//	               (it fires at launch, before any prompt: the session waits) unless source is
//	               "compact"
//	BeforeAgent    turn.started (the human submitted a prompt); session.titled from the prompt's
//	               first line when the row has no title yet (hookjson.PromptTitle)
//	BeforeTool     tool.started; ask_user also approval.requested (the agent asks the human)
//	Notification   ToolPermission: approval.requested, unless one is pending; the tool is the
//	               one out on the row (BeforeTool comes first), the reason the details' command,
//	               else file path, else url, else the message, else the details' title
//	AfterTool      tool.ended: error when tool_response carries an error, else ok
//	AfterModel     context.tokens: llm_response.usageMetadata.promptTokenCount, when it is there
//	               (a whole number > 0) and differs from the row's
//	AfterAgent     turn.ended completed; error when prompt_response is "[no response text]"
//	               (NoResponseText: the turn produced no reply, as an API error does)
//	SessionEnd     session.ended (only for a row the host holds): the row settles, done after
//	               its AfterAgent, error when the turn was still open (a headless API error)
//	anything else  nothing (BeforeModel, BeforeToolSelection, PreCompress, new hooks)
//
// A pending approval is resolved by what follows it: the approved tool's
// AfterTool (or the next BeforeTool of that tool) is allowed-once, another
// tool's cancelled, a new prompt or the turn's end clears it. An event for a
// session the host does not hold opens it from the payload.
//
// A No / Esc at its confirmation prompt, or an Esc while the model answers,
// fires no hook (no AfterTool, no AfterAgent); its chat transcript records
// "Request cancelled." at once, and the host ends the turn from it
// (Interrupted, looked at while the row works or asks).
//
// What Gemini CLI 0.61 does not tell us: which API error ended a
// turn (only that it produced no reply), subagents (delegation is a tool
// call on the session's own row) and a title (the row takes the first
// prompt's first line). The budget comes only from the row
// (docs/contract.md rule 1).
package gemini

import (
	"encoding/json"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

// Agent is the adapter's name in URLs and commands:
// /agents-notch/hooks/gemini, "notch-web hook gemini".
const Agent = "gemini"

// Hook event names, as Gemini CLI sends them.
const (
	SessionStart = "SessionStart"
	SessionEnd   = "SessionEnd"
	BeforeAgent  = "BeforeAgent"
	AfterAgent   = "AfterAgent"
	BeforeTool   = "BeforeTool"
	AfterModel   = "AfterModel"
	AfterTool    = "AfterTool"
	Notification = "Notification"
)

// Events are the hooks this adapter maps, in the order an installer lists
// them.
var Events = []string{SessionStart, BeforeAgent, AfterModel, BeforeTool, Notification, AfterTool, AfterAgent, SessionEnd}

// NoResponseText is what Gemini CLI hands AfterAgent as prompt_response
// when the turn produced no reply text ("turn.getResponseText() ||
// '[no response text]'" in its client): in 0.61 the sign of a turn that
// ended on an API error.
const NoResponseText = "[no response text]"

// ToolPermission is the Notification type of a confirmation prompt.
const ToolPermission = "ToolPermission"

// asksHuman are the tools whose call is the agent asking the human.
var asksHuman = map[string]bool{"ask_user": true}

// permissionTools name the tool of a confirmation whose row shows no tool
// out, by the confirmation's kind.
var permissionTools = map[string]string{"exec": "run_shell_command", "edit": "replace", "info": "web_fetch", "ask_user": "ask_user"}

// Map maps one hook payload. It is pure: lookup is the host's view of the
// rows. A body that is not a hook payload is a *hookjson.DecodeError
// (errors.Is hookjson.ErrPayload): a 400. An unknown hook name is no error:
// its Mapping is empty.
func Map(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
	p, err := hookjson.Decode(payload)
	if err != nil {
		return hookjson.Mapping{}, err
	}
	b := hookjson.NewBuilder(p, lookup)
	tool := p.String("tool_name")
	switch p.Event {
	case SessionStart:
		b.Started("", p.String("source"))
	case BeforeAgent:
		b.TurnStarted()
		b.PromptTitle(p.String("prompt"))
	case BeforeTool:
		b.Progress(tool)
		b.ToolStarted(tool)
		if asksHuman[tool] {
			b.Ask(tool, question(p.Object("tool_input")))
		}
	case Notification:
		if p.String("notification_type") == ToolPermission && b.MayBeInTurn() {
			d := p.Object("details")
			reason := hookjson.First(d, hookjson.MaxReason, "command", "filePath", "url")
			if reason == "" {
				reason = hookjson.First(p.Fields, hookjson.MaxReason, "message")
			}
			if reason == "" {
				reason = d.String("title")
			}
			b.AskIfNone(permissionTool(b.ToolOut(), d), reason)
		}
	case AfterTool:
		b.Progress(tool)
		if failed(p.Fields) {
			b.ToolEnded(tool, state.OutcomeError)
		} else {
			b.ToolEnded(tool, state.OutcomeOK)
		}
	case AfterModel:
		// One per streamed chunk; the count is the request's prompt, i.e.
		// the context the model was given.
		if n, ok := p.Object("llm_response").Object("usageMetadata").Count("promptTokenCount"); ok {
			b.Tokens(n)
		}
	case AfterAgent:
		if p.String("prompt_response") == NoResponseText {
			b.TurnEnded(state.OutcomeError)
		} else {
			b.TurnEnded(state.OutcomeCompleted)
		}
	case SessionEnd:
		b.Ended("")
	}
	// Its chat transcript records an Esc no hook reports (Interrupted).
	b.Transcript(p.TranscriptPath)
	return b.Mapping(), nil
}

// question is an ask_user call's first question.
func question(in hookjson.Fields) string {
	if s := hookjson.First(in, hookjson.MaxReason, "question", "prompt", "message"); s != "" {
		return s
	}
	var qs []hookjson.Fields
	if raw := in["questions"]; len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &qs); err == nil && len(qs) > 0 {
			return hookjson.First(qs[0], hookjson.MaxReason, "question", "header")
		}
	}
	return ""
}

// permissionTool is the tool a confirmation is about: the one out on the
// row, else the MCP tool it names, else the tool its kind implies, else
// "permission".
func permissionTool(out string, details hookjson.Fields) string {
	switch {
	case out != "":
		return out
	case details.String("toolName") != "":
		return details.String("toolName")
	case permissionTools[details.String("type")] != "":
		return permissionTools[details.String("type")]
	}
	return "permission"
}

// failed reports whether AfterTool's tool_response carries an error: a
// non-empty string, or an object or array (Gemini CLI's error is
// {message, type}).
func failed(f hookjson.Fields) bool {
	resp := f.Object("tool_response")
	if resp == nil || !resp.Given("error") {
		return false
	}
	switch raw := string(resp["error"]); raw {
	case `""`, "false", "{}", "[]":
		return false
	}
	return true
}
