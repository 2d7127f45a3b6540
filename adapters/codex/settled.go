package codex

import (
	"bytes"
	"encoding/json"
	"time"

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
