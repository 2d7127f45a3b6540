package claudecode

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ResultsTail is how much of a transcript's end ToolResults reads: a tool's
// result is written the moment the call is answered, so it is near the end
// when the host looks (it looks on every write while a card waits).
const ResultsTail = 256 << 10

// Result is what a transcript says became of one tool call.
type Result struct {
	// Refused: the human said no at Claude Code's own prompt (No, or Esc):
	// the tool_result is an error carrying Claude Code's refusal text.
	Refused bool
	// Error: the tool_result is an error (a refusal, or the tool failed).
	Error bool
	// Stopped: the refusal stopped the turn (Claude Code waits for the
	// human's next prompt); a subagent's refusal lets it carry on.
	Stopped bool
}

// refusals are the texts Claude Code writes as a call's result when the
// human refused it at its own prompt (its REJECT_MESSAGE, CANCEL_MESSAGE and
// the subagent's variants all open with one of these), or interrupted it.
var refusals = []string{
	"The user doesn't want to proceed with this tool use",
	"The user doesn't want to take this action",
	"[Request interrupted by user for tool use]",
	"Permission for this tool use was denied",
}

// ToolResults reads at most the last maxTail bytes of a Claude Code
// transcript and reports, for each of the call ids that has a tool_result
// there, what became of it. Like ContextTokens it never fails: any problem
// (no such file, not an absolute .jsonl path, not a regular file) reports
// nothing, and a FIFO or device is refused without blocking.
func ToolResults(path string, ids []string, maxTail int64) map[string]Result {
	if len(ids) == 0 {
		return nil
	}
	buf, ok := readTail(path, maxTail)
	if !ok {
		return nil
	}
	return scanResults(buf, ids)
}

// resultLine is the part of a transcript line scanResults reads.
type resultLine struct {
	Type    string `json:"type"`
	Message *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type resultBlock struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

var toolResultKey = []byte(`"tool_result"`)

// scanResults reads the complete lines of buf (a partial first or last
// line is skipped by its failing to parse) for the tool_result blocks of
// the calls in ids.
func scanResults(buf []byte, ids []string) map[string]Result {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id != "" {
			want[id] = true
		}
	}
	var out map[string]Result
	for line := range bytes.Lines(buf) {
		if !bytes.Contains(line, toolResultKey) {
			continue
		}
		hit := false
		for id := range want {
			if bytes.Contains(line, []byte(id)) {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		var l resultLine
		if json.Unmarshal(line, &l) != nil || l.Type != "user" || l.Message == nil ||
			len(l.Message.Content) == 0 || l.Message.Content[0] != '[' {
			continue
		}
		var blocks []resultBlock
		if json.Unmarshal(l.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_result" || !want[b.ToolUseID] {
				continue
			}
			r := Result{Error: b.IsError}
			if b.IsError {
				text := resultText(b.Content)
				for _, p := range refusals {
					if strings.Contains(text, p) {
						r.Refused = true
						break
					}
				}
				r.Stopped = r.Refused && (strings.Contains(text, "STOP what you are doing") ||
					strings.Contains(text, "[Request interrupted by user"))
			}
			if out == nil {
				out = map[string]Result{}
			}
			out[b.ToolUseID] = r
		}
	}
	return out
}

// resultText is a tool_result's content as text: a string, or the text
// blocks of a list.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, x := range blocks {
		if x.Type == "text" {
			b.WriteString(x.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
