package codex

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/internal/tail"
	"github.com/notch-web/notch-web/state"
)

// Codex 0.169 appends every turn's start and end to the session's rollout
// (~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl, the hooks'
// transcript_path) as event_msg lines: task_started when a turn opens,
// task_complete when it ends (with an "error" member when the model
// failed: a TUI turn that fails fires no hook at all), turn_aborted when
// the human interrupted it (Esc, mid-stream or at an approval). The end is
// on disk some 60–140 ms after the Stop or Interrupt hook.

// rolloutLine is the part of a rollout line Settled reads.
type rolloutLine struct {
	Timestamp time.Time `json:"timestamp"`
	Type      string    `json:"type"`
	Payload   struct {
		Type  string          `json:"type"`
		Error json.RawMessage `json:"error"`
	} `json:"payload"`
}

var eventMsg = []byte(`"event_msg"`)

// Settled reports how the latest turn in the rollout at path ended — its
// task_complete (error when it carries one, else completed) or
// turn_aborted (the human's interrupt: completed, as the Interrupt hook
// makes it) — when that end is stamped no earlier than since; ok is false
// while the latest turn is open (a task_started is the last of the three;
// at an approval the rollout ends with the call and cannot say more), or
// when nothing can be told (no such file, none of the three within the
// lines read).
func Settled(path string, since time.Time) (outcome string, ok bool) {
	tail.Lines(path, tail.DefaultLimits, func(line []byte) bool {
		if !bytes.Contains(line, eventMsg) {
			return true
		}
		var l rolloutLine
		if json.Unmarshal(line, &l) != nil || l.Type != "event_msg" {
			return true
		}
		switch l.Payload.Type {
		case "task_started":
			return false
		case "task_complete", "turn_aborted":
			if l.Timestamp.Before(since) {
				return false
			}
			outcome, ok = state.OutcomeCompleted, true
			if e := bytes.TrimSpace(l.Payload.Error); l.Payload.Type == "task_complete" && len(e) > 0 && !bytes.Equal(e, []byte("null")) {
				outcome = state.OutcomeError
			}
			return false
		}
		return true
	})
	return outcome, ok
}

// whyLine is the part of a rollout's task_complete Why reads.
type whyLine struct {
	Timestamp time.Time `json:"timestamp"`
	Type      string    `json:"type"`
	Payload   struct {
		Type  string `json:"type"`
		Error *struct {
			Message string `json:"message"`
			// Info is Codex's kind of the error: a name
			// ("context_window_exceeded", "usage_limit_exceeded",
			// "other") or an object named by its one key
			// ({"http_connection_failed": {…}}).
			Info json.RawMessage `json:"codex_error_info"`
		} `json:"error"`
	} `json:"payload"`
}

// Why reads why the latest turn of the rollout at path failed: its
// task_complete's error, stamped no earlier than since — codex_error_info
// as the code, the provider's message as the words (the inner "message"
// of a JSON body, which is read whole for the kind and a reset). ok is
// false when the latest end is no failure, or nothing can be told.
func Why(path string, since time.Time) (why hookjson.Why, ok bool) {
	tail.Lines(path, tail.DefaultLimits, func(line []byte) bool {
		if !bytes.Contains(line, eventMsg) {
			return true
		}
		var l whyLine
		if json.Unmarshal(line, &l) != nil || l.Type != "event_msg" {
			return true
		}
		switch l.Payload.Type {
		case "task_started", "turn_aborted":
			return false
		case "task_complete":
			if l.Timestamp.Before(since) || l.Payload.Error == nil {
				return false
			}
			e := l.Payload.Error
			code, status := infoName(e.Info)
			if status != 0 {
				// A failed HTTP call: its status says more than the name
				// (a 401 is no connection failure).
				code = ""
			}
			why, ok = hookjson.WhyOf(code, innerMessage(e.Message), e.Message, httpStatus(status)), true
			return false
		}
		return true
	})
	return why, ok
}

// infoName is codex_error_info's name: the string, or an object's one
// key; status is the HTTP status the object gives (http_status_code), 0
// for none.
func infoName(raw json.RawMessage) (name string, status int) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, 0
	}
	var o map[string]struct {
		Status int `json:"http_status_code"`
	}
	if json.Unmarshal(raw, &o) == nil && len(o) == 1 {
		for k, v := range o {
			return k, v.Status
		}
	}
	return "", 0
}

// httpStatus is "HTTP 401" for a status, "" for none: text for WhyOf.
func httpStatus(status int) string {
	if status <= 0 {
		return ""
	}
	return "HTTP " + strconv.Itoa(status)
}

// innerMessage is a provider's error body's message ({"error":
// {"message": …}}), else the text as it is.
func innerMessage(text string) string {
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(text)), &body) == nil && body.Error.Message != "" {
		return body.Error.Message
	}
	return text
}
