package gemini

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/internal/tail"
)

// InterruptTail is how much of a transcript's end Interrupted reads.
const InterruptTail = 64 << 10

// cancelled is the info message Gemini CLI 0.61 records in its chat
// transcript (~/.gemini/tmp/<project>/chats/session-….jsonl) when the human
// presses Esc — at its confirmation prompt or while the model answers —
// and no hook fires.
const cancelled = "Request cancelled."

// Interrupted reports whether the Gemini CLI transcript at path says the
// human cancelled the turn at or after since: one of its whole lines among
// the last InterruptTail bytes is the info message "Request cancelled.",
// stamped no earlier than since. (Gemini rewrites the history after a
// cancel, so the info line need not be the last: any cancel stamped since
// the row entered its status counts, for whatever the session did next
// would have come with a hook and moved since.) Any problem is false.
func Interrupted(path string, since time.Time) bool {
	buf, ok := tail.Read(path, InterruptTail)
	return ok && cancelledIn(buf, since)
}

// chatLine is the part of a chat transcript line cancelledIn reads.
type chatLine struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Content   json.RawMessage `json:"content"`
}

// cancelledIn reports whether buf holds an info line "Request cancelled."
// stamped at or after since.
func cancelledIn(buf []byte, since time.Time) bool {
	for line := range bytes.Lines(buf) {
		if !bytes.Contains(line, []byte(cancelled)) {
			continue
		}
		var l chatLine
		if json.Unmarshal(line, &l) != nil || l.Type != "info" || l.Timestamp.Before(since) {
			continue
		}
		var text string
		if json.Unmarshal(l.Content, &text) == nil && strings.TrimSpace(text) == cancelled {
			return true
		}
	}
	return false
}
