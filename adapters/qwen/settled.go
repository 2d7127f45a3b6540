package qwen

import (
	"encoding/json"
	"time"

	"github.com/notch-web/notch-web/adapters/internal/tail"
	"github.com/notch-web/notch-web/state"
)

// Qwen Code 0.24's chat file (the hooks' transcript_path,
// ~/.qwen/projects/<project>/chats/<session>.jsonl) is append-only, one
// record a line: {"type": "user"|"assistant"|"tool_result"|"system",
// "timestamp", "message": {"role", "parts": [{"text"}|{"functionCall"}|…]}};
// a "system" record of subtype "ui_telemetry" carries
// systemPayload.uiEvent["event.name"], "qwen-code.api_error" when a model
// request failed. A reply is written once, complete.

// chatRecord is the part of a record Settled reads.
type chatRecord struct {
	Type       string    `json:"type"`
	Subtype    string    `json:"subtype"`
	Timestamp  time.Time `json:"timestamp"`
	Provenance string    `json:"provenance"`
	Message    struct {
		Parts []struct {
			Text         *string         `json:"text"`
			FunctionCall json.RawMessage `json:"functionCall"`
		} `json:"parts"`
	} `json:"message"`
	SystemPayload struct {
		UIEvent struct {
			Name string `json:"event.name"`
		} `json:"uiEvent"`
	} `json:"systemPayload"`
	ToolCallResult struct {
		Status string `json:"status"`
	} `json:"toolCallResult"`
}

// Settled reports how the latest turn in the chat file at path ended, when
// the record that ends it is stamped no earlier than since: a reply with
// text and no call is completed, a cancelled call (an Esc at its
// confirmation or while it ran: Qwen Code stops the turn there) is
// completed, a failed model request (api_error) is error. ok is false
// while the turn is open — the latest record is the prompt, a call, a
// call's result the model has yet to answer — or when nothing can be told
// (an Esc while the model streams writes nothing: the file still ends at
// the prompt).
func Settled(path string, since time.Time) (outcome string, ok bool) {
	tail.Lines(path, tail.DefaultLimits, func(line []byte) bool {
		var r chatRecord
		if json.Unmarshal(line, &r) != nil {
			return true
		}
		switch r.Type {
		case "user":
			return false
		case "system":
			if r.Subtype != "ui_telemetry" || r.SystemPayload.UIEvent.Name != "qwen-code.api_error" {
				return true // a snapshot, another event: look on
			}
			outcome = state.OutcomeError
		case "tool_result":
			if r.ToolCallResult.Status != "cancelled" {
				return false
			}
			outcome = state.OutcomeCompleted
		case "assistant":
			text := false
			for _, p := range r.Message.Parts {
				if len(p.FunctionCall) > 0 && string(p.FunctionCall) != "null" {
					return false
				}
				text = text || p.Text != nil && *p.Text != ""
			}
			if !text {
				return false
			}
			outcome = state.OutcomeCompleted
		default:
			return true
		}
		if r.Timestamp.Before(since) {
			outcome = ""
			return false
		}
		ok = true
		return false
	})
	return outcome, ok
}
