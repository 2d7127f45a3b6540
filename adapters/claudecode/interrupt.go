package claudecode

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// InterruptTail is how much of a transcript's end Interrupted reads.
const InterruptTail = 64 << 10

// interruptMarker opens the text Claude Code writes as a user message when
// the human presses Esc while the model is answering: no hook fires (no
// Stop), only the transcript says so.
const interruptMarker = "[Request interrupted by user"

// Interrupted reports whether a Claude Code transcript's latest turn was
// interrupted by the human at or after since: its last user or assistant
// line (within the last InterruptTail bytes) is the user message
// "[Request interrupted by user…]", stamped no earlier than since. Any
// problem (no such file, not an absolute .jsonl path, not a regular file,
// no such line) is false; a FIFO or device is refused without blocking.
func Interrupted(path string, since time.Time) bool {
	buf, ok := readTail(path, InterruptTail)
	return ok && interruptedIn(buf, since)
}

// interruptLine is the part of a transcript line interruptedIn reads.
type interruptLine struct {
	Type        string    `json:"type"`
	IsSidechain bool      `json:"isSidechain"`
	Timestamp   time.Time `json:"timestamp"`
	Message     *struct {
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// interruptedIn walks buf's complete lines from the last one back to the
// last user or assistant line of the session (not a subagent's) and
// reports whether it is the interrupt marker, stamped at or after since. A
// synthetic assistant line (Claude Code's own note on the aborted request)
// is not an answer and is passed over.
func interruptedIn(buf []byte, since time.Time) bool {
	for end := len(buf); end > 0; {
		i := bytes.LastIndexByte(buf[:end], '\n')
		line := buf[i+1 : end]
		end = max(i, 0)
		var l interruptLine
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &l) != nil || l.IsSidechain ||
			(l.Type != "user" && l.Type != "assistant") {
			continue
		}
		if l.Type == "assistant" && l.Message != nil && l.Message.Model == "<synthetic>" {
			continue // what Claude Code writes for the aborted request, not the model's answer
		}
		if l.Type == "assistant" || l.Message == nil {
			return false
		}
		return strings.HasPrefix(strings.TrimSpace(resultText(l.Message.Content)), interruptMarker) &&
			!l.Timestamp.Before(since)
	}
	return false
}
