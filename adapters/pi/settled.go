package pi

import (
	"encoding/json"
	"time"

	"github.com/notch-web/notch-web/adapters/internal/tail"
	"github.com/notch-web/notch-web/state"
)

// Pi 0.73's session file (the extension's transcript_path,
// ~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl, docs/session-format.md)
// is one entry a line; a message is {"type": "message", "message": {"role":
// "user"|"assistant"|"toolResult", "stopReason", "timestamp"}}, written
// once it is complete.

// entry is the part of a session file's line Settled reads.
type entry struct {
	Type    string `json:"type"`
	Message struct {
		Role       string `json:"role"`
		StopReason string `json:"stopReason"`
		Timestamp  int64  `json:"timestamp"`
	} `json:"message"`
}

// Settled reports how the latest turn in the session file at path ended,
// when the message that ends it is stamped no earlier than since: an
// assistant message that stopped (stop, length) or was aborted (the
// human's interrupt) is completed, one that stopped in an error is error.
// ok is false while the turn is open — the latest message is the prompt,
// a tool's result, or an answer that calls tools — or when nothing can be
// told.
func Settled(path string, since time.Time) (outcome string, ok bool) {
	tail.Lines(path, tail.DefaultLimits, func(line []byte) bool {
		var e entry
		if json.Unmarshal(line, &e) != nil || e.Type != "message" {
			return true // headers, model changes, labels: read on
		}
		if e.Message.Role != "assistant" || e.Message.Timestamp < since.UnixMilli() {
			return false
		}
		switch e.Message.StopReason {
		case stopToolUse, "":
		case stopError:
			outcome, ok = state.OutcomeError, true
		default:
			outcome, ok = state.OutcomeCompleted, true
		}
		return false
	})
	return outcome, ok
}
