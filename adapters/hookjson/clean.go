package hookjson

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/state"
)

// Limits on what an adapter copies out of a payload, in bytes. Each is at
// most the vocabulary's own limit for the field (state.Event), so a cleaned
// string always validates.
const (
	MaxTool    = 200  // a tool name (the vocabulary's limit)
	MaxReason  = 200  // an approval's one-line reason
	MaxTitle   = 200  // a title (session_title, a subagent's type)
	MaxProject = 200  // a project named after the cwd's last segment
	MaxCwd     = 4096 // a working directory (the vocabulary's limit)
	// MaxPromptTitle is a title taken from a prompt's first line: a row's
	// name, not the prompt.
	MaxPromptTitle = 80
	// maxPromptScan is how much of a prompt PromptTitle looks at.
	maxPromptScan = 4096
)

// ellipsis ends a string that was cut.
const ellipsis = "…"

// replaced reports whether r must not reach a row: what internal/textrule
// hides (control characters — tab, newline and DEL included —, bidi marks,
// embeddings, overrides and isolates, U+061C, zero-width characters, the
// line and paragraph separators), which could make a label read as
// something it is not. The one text rule; the fold applies it again.
func replaced(r rune) bool { return textrule.Hidden(r) }

// Clean returns s fit for an event's string field: invalid UTF-8 becomes
// U+FFFD, every character that must not reach a row (see replaced) becomes a
// space, and the result is at most max bytes, cut on a rune boundary and
// ended with "…" when cut. It stops reading s once max is reached, so a
// huge payload field costs no more than a short one.
func Clean(s string, max int) string { return clean(s, max, false) }

// OneLine is Clean for labels: runs of white space (including what Clean
// replaced) become one space and the ends are trimmed, so a multi-line
// command reads as one line.
func OneLine(s string, max int) string { return clean(s, max, true) }

func clean(s string, max int, collapse bool) string {
	if max <= 0 {
		return ""
	}
	out := make([]byte, 0, min(len(s), max))
	space := collapse // at the start, a space is leading: drop it
	cut := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 {
			r = unicode.ReplacementChar
		}
		if replaced(r) {
			r = ' '
		}
		if collapse && unicode.IsSpace(r) {
			if space {
				continue
			}
			r, space = ' ', true
		} else {
			space = false
		}
		if len(out)+utf8.RuneLen(r) > max {
			cut = true
			break
		}
		out = utf8.AppendRune(out, r)
	}
	if cut && max >= len(ellipsis) {
		for len(out)+len(ellipsis) > max {
			_, size := utf8.DecodeLastRune(out)
			out = out[:len(out)-size]
		}
		if collapse {
			out = trimRightSpace(out)
		}
		out = append(out, ellipsis...)
	}
	if collapse {
		out = trimRightSpace(out)
	}
	return string(out)
}

// PromptTitle is a row's title taken from what the human typed: the first
// line of prompt that has any text, cleaned and cut to max bytes (OneLine).
// It is "" when there is none, and for a prompt the agent wrote itself
// rather than the human: one that opens with a tag, like Claude Code's
// "<task-notification>" that brings a background subagent's result back.
// Only the first maxPromptScan bytes are read.
func PromptTitle(prompt string, max int) string {
	if len(prompt) > maxPromptScan {
		prompt = prompt[:maxPromptScan]
	}
	if synthetic(strings.TrimLeft(prompt, " \t\r\n")) {
		return ""
	}
	for line := range strings.Lines(prompt) {
		// A lone CR, U+2028 and U+2029 end a line too.
		for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == '\r' || r == '\u2028' || r == '\u2029' }) {
			if t := OneLine(part, max); t != "" && t != ellipsis {
				return t
			}
		}
	}
	return ""
}

// synthetic reports whether a prompt opens with a tag ("<name>" or
// "<name attr…>"): text an agent put there, not the human.
func synthetic(s string) bool {
	if len(s) < 3 || s[0] != '<' {
		return false
	}
	i := 1
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] == '-' || s[i] == '_' || i > 1 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	return i > 1 && i < len(s) && (s[i] == '>' || s[i] == ' ')
}

func trimRightSpace(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}

// validID reports whether id can stand as a row id as it is: 1 to
// state.MaxSessionID bytes of valid UTF-8 with nothing Clean would replace.
func validID(id string) bool {
	if id == "" || len(id) > state.MaxSessionID || !utf8.ValidString(id) {
		return false
	}
	for _, r := range id {
		if replaced(r) {
			return false
		}
	}
	return true
}

// hashID is a stable id for what cannot stand as an id itself: prefix and
// the first 32 hex digits (128 bits) of the SHA-256 of parts, each followed
// by a NUL so that ("ab","c") and ("a","bc") differ.
func hashID(prefix string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return prefix + hex.EncodeToString(h.Sum(nil))[:32]
}

// ID is the row id for a session id taken from a payload: the id itself
// when it is a valid id as it stands (1 to 200 bytes of valid UTF-8 without
// control, bidi or zero-width characters) and not in the namespace of
// derived ids (state.DerivedID: no "/", no "h:" or "a:" in front, so a raw
// id can never name a subagent's or a hashed row), otherwise "h:" and 32
// hex digits of its SHA-256.
// Either way it is stable, so every hook of a session lands on one row. An
// empty id stays empty.
func ID(raw string) string {
	if raw == "" || (validID(raw) && !state.DerivedID(raw)) {
		return raw
	}
	return hashID("h:", raw)
}

// SubagentID is the row id of a subagent: its parent's row id, "/" and the
// agent id ("<session>/<agent_id>"), when that is a valid id and the agent
// id has no "/" (so that the pair is read back unambiguously); otherwise
// "a:" and 32 hex digits of the SHA-256 of the parent's row id and the
// agent id. It is stable for a pair, never the parent's own id, and at most
// 200 bytes.
func SubagentID(parentRaw, agentRaw string) string {
	parent := ID(parentRaw)
	if id := parent + "/" + agentRaw; !strings.Contains(agentRaw, "/") && validID(id) {
		return id
	}
	return hashID("a:", parent, agentRaw)
}
