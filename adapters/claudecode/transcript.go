package claudecode

import (
	"bytes"
	"encoding/json"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/internal/tail"
	"github.com/notch-web/notch-web/state"
)

// ContextTokens reads a Claude Code transcript (JSON Lines) from its end
// back, line by line within tail.DefaultLimits (by entries: one long line
// — the ~64 KB prompt_snapshot Claude Code 2.1.328 writes after a
// session's first reply and after a compaction — is one entry, and cannot
// push the reply out of a byte window), and returns the context size of its latest
// assistant message: message.usage's input_tokens +
// cache_creation_input_tokens + cache_read_input_tokens. One API response is
// written as several lines sharing a requestId, so the lines of the latest
// requestId count once (the largest sum among them, since streaming may
// record an early block's usage before it is final). Subagent (sidechain)
// lines and synthetic messages are skipped. A compaction's boundary line
// after the latest assistant message (/compact, or an automatic one) is
// the answer instead: the context it left (compactMetadata.postTokens; 0
// when it says not), so the row's figure drops once the compaction is
// done, not at the next reply.
//
// It never fails a hook: any problem (no such file, not an absolute .jsonl
// path, not a regular file, no assistant line within the limits) gives
// (0, false). A FIFO or device is refused
// without blocking. The host calls it off the hook's path; the budget the
// tokens are measured against still comes only from the row (docs/contract.md rule 1).
func ContextTokens(path string) (int64, bool) {
	return contextTokens(path, tail.DefaultLimits, false)
}

// SubagentContextTokens is ContextTokens for a subagent's own transcript
// (<session dir>/subagents/agent-<agent_id>.jsonl), every line of which is a
// sidechain line: those are the lines it reads.
func SubagentContextTokens(path string) (int64, bool) {
	return contextTokens(path, tail.DefaultLimits, true)
}

// Tokens reads the context tokens of the transcript a hook named
// (hookjson.Mapping.Transcript): a session's or a subagent's.
func Tokens(tr hookjson.Transcript) (int64, bool) {
	if tr.Sidechain {
		return SubagentContextTokens(tr.Path)
	}
	return ContextTokens(tr.Path)
}

func contextTokens(path string, lim tail.Limits, sidechain bool) (int64, bool) {
	u := usageScan{sidechain: sidechain}
	tail.Lines(path, lim, u.line)
	return u.best, u.found
}

// readTail is tail.Read: the whole lines among the last maxTail bytes of
// the transcript at path, never failing loudly, never blocking.
func readTail(path string, maxTail int64) ([]byte, bool) { return tail.Read(path, maxTail) }

// usageLine is the part of a transcript line ContextTokens reads.
type usageLine struct {
	Type        string `json:"type"`
	RequestID   string `json:"requestId"`
	IsSidechain bool   `json:"isSidechain"`
	Message     *struct {
		Model string `json:"model"`
		Usage *struct {
			Input         int64 `json:"input_tokens"`
			CacheCreation int64 `json:"cache_creation_input_tokens"`
			CacheRead     int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

var (
	usageKey     = []byte(`"usage"`)
	assistantKey = []byte(`"assistant"`)
	compactKey   = []byte(`"compact_boundary"`)
)

// compactLine is the part of a compaction's boundary line ContextTokens
// reads: Claude Code writes it once a compaction (/compact, or an
// automatic one) is done, with the context before it and what it left.
type compactLine struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	IsSidechain bool   `json:"isSidechain"`
	Meta        *struct {
		Post json.Number `json:"postTokens"`
	} `json:"compactMetadata"`
}

// compacted reads line as a compaction's boundary of the scan's side: its
// postTokens (0 when it gives none), and whether it is one.
func (u *usageScan) compacted(line []byte) (int64, bool) {
	var l compactLine
	if json.Unmarshal(line, &l) != nil || l.Type != "system" || l.Subtype != "compact_boundary" || l.IsSidechain != u.sidechain {
		return 0, false
	}
	if l.Meta == nil {
		return 0, true
	}
	n, err := l.Meta.Post.Int64()
	if err != nil || n < 0 {
		return 0, true
	}
	return min(n, state.MaxInteger), true
}

// usageScan finds the latest assistant message's context size, fed lines
// from the last back (see ContextTokens).
type usageScan struct {
	sidechain bool
	found     bool
	best      int64
	request   string
}

// line takes the next line back; false: the answer is found.
func (u *usageScan) line(line []byte) bool {
	if bytes.Contains(line, compactKey) {
		// A compaction after the latest reply: the context is what it
		// left, not that reply's usage (which is before it, and stale);
		// one before the reply found ends the scan.
		if post, ok := u.compacted(line); ok {
			if !u.found {
				u.found, u.best = true, post
			}
			return false
		}
	}
	if !bytes.Contains(line, usageKey) || !bytes.Contains(line, assistantKey) {
		return true
	}
	var l usageLine
	if json.Unmarshal(line, &l) != nil || l.Type != "assistant" || l.IsSidechain != u.sidechain ||
		l.Message == nil || l.Message.Usage == nil || l.Message.Model == "<synthetic>" {
		return true
	}
	if u.found && l.RequestID != u.request {
		return false // an earlier response: the latest one is counted
	}
	us := l.Message.Usage
	sum := max(0, us.Input) + max(0, us.CacheCreation) + max(0, us.CacheRead)
	if sum < 0 || sum > state.MaxInteger { // overflowed, or beyond what a reader holds exactly
		sum = state.MaxInteger
	}
	u.found, u.request, u.best = true, l.RequestID, max(u.best, sum)
	return u.request != "" // nothing to de-duplicate by: the latest line is the answer
}

// latestUsage is usageScan over the lines of buf, from the last back.
func latestUsage(buf []byte, sidechain bool) (int64, bool) {
	u := usageScan{sidechain: sidechain}
	for end := len(buf); end > 0; {
		i := bytes.LastIndexByte(buf[:end], '\n')
		line := buf[i+1 : end]
		end = max(i, 0)
		if !u.line(line) {
			break
		}
	}
	return u.best, u.found
}
