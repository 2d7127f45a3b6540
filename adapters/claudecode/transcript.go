package claudecode

import (
	"bytes"
	"encoding/json"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/internal/tail"
	"github.com/notch-web/notch-web/state"
)

// DefaultTail is how much of a transcript's end ContextTokens reads: enough
// to hold the last assistant messages, little enough to read on every hook.
const DefaultTail = 64 << 10

// ContextTokens reads at most the last maxTail bytes of a Claude Code
// transcript (JSON Lines) and returns the context size of its latest
// assistant message: message.usage's input_tokens +
// cache_creation_input_tokens + cache_read_input_tokens. One API response is
// written as several lines sharing a requestId, so the lines of the latest
// requestId count once (the largest sum among them, since streaming may
// record an early block's usage before it is final). Subagent (sidechain)
// lines and synthetic messages are skipped.
//
// It never fails a hook: any problem (no such file, not an absolute .jsonl
// path, not a regular file, a tail with no complete assistant line, a line
// longer than the tail) gives (0, false). A FIFO or device is refused
// without blocking. The host calls it off the hook's path; the budget the
// tokens are measured against still comes only from the row (docs/contract.md rule 1).
func ContextTokens(path string, maxTail int64) (int64, bool) {
	return contextTokens(path, maxTail, false)
}

// SubagentContextTokens is ContextTokens for a subagent's own transcript
// (<session dir>/subagents/agent-<agent_id>.jsonl), every line of which is a
// sidechain line: those are the lines it reads.
func SubagentContextTokens(path string, maxTail int64) (int64, bool) {
	return contextTokens(path, maxTail, true)
}

// Tokens reads the context tokens of the transcript a hook named
// (hookjson.Mapping.Transcript): a session's or a subagent's.
func Tokens(tr hookjson.Transcript) (int64, bool) {
	if tr.Sidechain {
		return SubagentContextTokens(tr.Path, DefaultTail)
	}
	return ContextTokens(tr.Path, DefaultTail)
}

func contextTokens(path string, maxTail int64, sidechain bool) (int64, bool) {
	buf, ok := readTail(path, maxTail)
	if !ok {
		return 0, false
	}
	return latestUsage(buf, sidechain)
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
)

// latestUsage walks complete lines from the last one back and returns the
// context size of the latest assistant message (see ContextTokens).
func latestUsage(buf []byte, sidechain bool) (int64, bool) {
	var (
		found   bool
		best    int64
		request string
	)
	for end := len(buf); end > 0; {
		i := bytes.LastIndexByte(buf[:end], '\n')
		line := buf[i+1 : end]
		end = max(i, 0)
		if !bytes.Contains(line, usageKey) || !bytes.Contains(line, assistantKey) {
			continue
		}
		var l usageLine
		if json.Unmarshal(line, &l) != nil || l.Type != "assistant" || l.IsSidechain != sidechain ||
			l.Message == nil || l.Message.Usage == nil || l.Message.Model == "<synthetic>" {
			continue
		}
		if found && l.RequestID != request {
			break // an earlier response: the latest one is counted
		}
		u := l.Message.Usage
		sum := max(0, u.Input) + max(0, u.CacheCreation) + max(0, u.CacheRead)
		if sum < 0 || sum > state.MaxInteger { // overflowed, or beyond what a reader holds exactly
			sum = state.MaxInteger
		}
		found, request, best = true, l.RequestID, max(best, sum)
		if request == "" {
			break // nothing to de-duplicate by: the latest line is the answer
		}
	}
	return best, found
}
