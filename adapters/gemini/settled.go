package gemini

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/internal/tail"
	"github.com/notch-web/notch-web/state"
)

// Gemini CLI 0.61's chat transcript is append-only: each message a record
// {"id", "timestamp", "type": "user"|"gemini"|"info"|"error", "content"},
// a changed one appended again whole, with "$set" lines between (its
// lastUpdated, or the whole history). A reply is written once, complete.

// chatRecord is the part of a record Settled reads.
type chatRecord struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		Status string `json:"status"`
	} `json:"toolCalls"`
}

// toolDone are the statuses of a call that no longer runs.
var toolDone = map[string]bool{"success": true, "error": true, "cancelled": true}

// Settled reports how the latest turn in the chat transcript at path
// ended, when the record that ends it is stamped no earlier than since:
// the human's cancel ("Request cancelled.") is completed, an "error"
// record (the model failed) is error, a reply with text and no call still
// running is completed. ok is false while the turn is open — the latest
// record is the prompt, or a reply with no text yet (Gemini CLI writes
// that while it waits at its confirmation, and while a tool runs) — or
// when nothing can be told.
func Settled(path string, since time.Time) (outcome string, ok bool) {
	tail.Lines(path, tail.DefaultLimits, func(line []byte) bool {
		if bytes.HasPrefix(line, []byte(`{"$set"`)) {
			return true
		}
		var r chatRecord
		if json.Unmarshal(line, &r) != nil {
			return true
		}
		switch r.Type {
		case "user":
			return false
		case "info":
			if text(r.Content) != cancelled {
				return true // another note ("This request failed…"): look on
			}
			outcome = state.OutcomeCompleted
		case "error":
			outcome = state.OutcomeError
		case "gemini":
			if text(r.Content) == "" {
				return false
			}
			for _, c := range r.ToolCalls {
				if !toolDone[c.Status] {
					return false
				}
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

// text is a record's content as text: a string, or the text parts of a
// list of parts.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return strings.TrimSpace(b.String())
}

// Why reads why the latest turn in the chat transcript at path failed:
// its "error" record ("[API Error: {…}]", the provider's body), stamped
// no earlier than since. The words are the body's message; the whole
// record is read for the kind (its status code, RESOURCE_EXHAUSTED …) and
// a reset (a quota's retryDelay). ok is false when the latest end is no
// error, or nothing can be told (headless, Gemini CLI writes no error
// record).
func Why(path string, since time.Time) (why hookjson.Why, ok bool) {
	tail.Lines(path, tail.DefaultLimits, func(line []byte) bool {
		if bytes.HasPrefix(line, []byte(`{"$set"`)) {
			return true
		}
		var r chatRecord
		if json.Unmarshal(line, &r) != nil {
			return true
		}
		switch r.Type {
		case "error":
			if !r.Timestamp.Before(since) {
				all := text(r.Content)
				why, ok = hookjson.WhyOf(geminiStatus(all), apiMessage(all), all), true
			}
			return false
		case "user", "gemini":
			return false
		}
		return true // an "info" note: look on
	})
	return why, ok
}

// apiMessage is the message of Gemini CLI's "[API Error: {…}]" text: the
// body's error.message, else the text without its brackets.
func apiMessage(s string) string {
	body := strings.TrimSuffix(strings.TrimPrefix(s, "[API Error: "), "]")
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	return body
}

// geminiStatus is the body's error.status (RESOURCE_EXHAUSTED,
// UNAUTHENTICATED, UNAVAILABLE …), a code WhyOf knows.
func geminiStatus(s string) string {
	body := strings.TrimSuffix(strings.TrimPrefix(s, "[API Error: "), "]")
	var e struct {
		Error struct {
			Status string `json:"status"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) != nil {
		return ""
	}
	return e.Error.Status
}
