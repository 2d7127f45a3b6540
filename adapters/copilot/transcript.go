package copilot

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/internal/tail"
)

// Copilot CLI's session file (<COPILOT_HOME>/session-state/<session>/
// events.jsonl) is one JSON event a line: {"type", "data", "id",
// "timestamp", "parentId"}, and "agentId" on a subagent's. These are the
// types read here.
const (
	// usageRecord is one model call's usage: data.usage.inputTokens (the
	// prompt beyond the cache), cacheReadTokens, cacheWriteTokens, and
	// initiator ("user", "agent", or "sub-agent" for a subagent's call).
	usageRecord = "session.usage_record"
	// abort is the human's Ctrl-C while the model answers, or No / Esc at
	// the permission prompt: data.reason "user_initiated".
	abort = "abort"
	// sessionError ends a turn the model call failed for (after Copilot's
	// own retries): data.errorType, message, statusCode.
	sessionError = "session.error"
)

// eventLine is the part of an events.jsonl line read here.
type eventLine struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	AgentID   string    `json:"agentId"`
	Data      struct {
		Usage *struct {
			Input      int64  `json:"inputTokens"`
			CacheRead  int64  `json:"cacheReadTokens"`
			CacheWrite int64  `json:"cacheWriteTokens"`
			MaxPrompt  int64  `json:"maxPromptTokens"`
			Initiator  string `json:"initiator"`
		} `json:"usage"`
	} `json:"data"`
}

// Tokens reads the context tokens of the session file a hook named: the
// prompt of the session's own latest model call (its input, cached or
// not), from the last usage record that is not a subagent's.
func Tokens(tr hookjson.Transcript) (int64, bool) {
	var n int64
	found := false
	tail.Lines(tr.Path, tail.DefaultLimits, func(line []byte) bool {
		if !bytes.Contains(line, []byte(usageRecord)) {
			return true
		}
		var l eventLine
		if json.Unmarshal(line, &l) != nil || l.Type != usageRecord || l.AgentID != "" || l.Data.Usage == nil ||
			l.Data.Usage.Initiator == "sub-agent" {
			return true
		}
		u := l.Data.Usage
		if u.Input < 0 || u.CacheRead < 0 || u.CacheWrite < 0 {
			return true
		}
		n, found = u.Input+u.CacheRead+u.CacheWrite, true
		return false
	})
	return n, found && n > 0
}

// Window reads the context window Copilot CLI gives the session's model:
// maxPromptTokens of the session's own latest usage record (the catalogue's
// for its model, or COPILOT_PROVIDER_MAX_PROMPT_TOKENS for a provider's).
func Window(tr hookjson.Transcript) (int64, bool) {
	var n int64
	tail.Lines(tr.Path, tail.DefaultLimits, func(line []byte) bool {
		if !bytes.Contains(line, []byte(usageRecord)) {
			return true
		}
		var l eventLine
		if json.Unmarshal(line, &l) != nil || l.Type != usageRecord || l.AgentID != "" || l.Data.Usage == nil ||
			l.Data.Usage.Initiator == "sub-agent" {
			return true
		}
		n = l.Data.Usage.MaxPrompt
		return false
	})
	return n, n > 0 && n <= 1<<40
}

// Interrupted reports whether the session file at path records the
// human's abort at or after since (among its last tail.DefaultLimits
// lines). Any problem is false.
func Interrupted(path string, since time.Time) bool { return stamped(path, abort, since) }

// Failed reports whether the session file at path records a model error
// that ended the turn, at or after since: the TUI fires no hook for it but
// ErrorOccurred, which comes at every retry too.
func Failed(path string, since time.Time) bool { return stamped(path, sessionError, since) }

// stamped reports whether the file holds a line of the session's own (not
// a subagent's) of type typ stamped at or after since.
func stamped(path, typ string, since time.Time) bool {
	hit := false
	tail.Lines(path, tail.DefaultLimits, func(line []byte) bool {
		if !bytes.Contains(line, []byte(`"`+typ+`"`)) {
			return true
		}
		var l eventLine
		if json.Unmarshal(line, &l) != nil || l.Type != typ || l.AgentID != "" {
			return true
		}
		if l.Timestamp.Before(since) {
			return false // older lines are older still
		}
		hit = true
		return false
	})
	return hit
}

// SessionFile is the session file Copilot CLI keeps for session, as the
// host's environment says where its home is ($COPILOT_HOME, else
// ~/.copilot): Copilot names it only on Stop, so the host would not see an
// interrupt or a failure in a session's first turn without it. A session
// id that is not one word of letters, digits, "-" and "_" names nothing.
func SessionFile(session string) string {
	if session == "" || len(session) > 128 || strings.Trim(session, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
		return ""
	}
	dir := os.Getenv("COPILOT_HOME")
	if !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil || !filepath.IsAbs(home) {
			return ""
		}
		dir = filepath.Join(home, ".copilot")
	}
	return filepath.Join(dir, "session-state", session, "events.jsonl")
}
