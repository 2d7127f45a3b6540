package qwen

import (
	"encoding/json"
	"time"

	"github.com/notch-web/notch-web/adapters/internal/tail"
)

// Interrupted reports whether Qwen Code's chat file at path says the human
// refused a call at its confirmation (a No / Esc), at or after since: its
// latest record, the "system" ones passed over, is that call's result with
// status "cancelled", written at once. No hook says so but the TUI's
// idle_prompt notification, which now and then does not come; this is the
// file's word for the same refusal. An Esc while the model streams writes
// nothing: only idle_prompt tells that. Any problem is false.
func Interrupted(path string, since time.Time) bool {
	found := false
	tail.Lines(path, tail.DefaultLimits, func(line []byte) bool {
		var r chatRecord
		if json.Unmarshal(line, &r) != nil || r.Type == "system" {
			return true
		}
		found = r.Type == "tool_result" && r.ToolCallResult.Status == "cancelled" && !r.Timestamp.Before(since)
		return false
	})
	return found
}
