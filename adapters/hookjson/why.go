package hookjson

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Why is why a session's turn stopped: a kind (WhyLimit …) and the
// agent's own words for it, one line, bounded (MaxWhy), with the moment a
// usage limit resets when the agent says it. It is a host-side fact beside
// the row (docs/contract.md: the row keeps its shape), never an event.
type Why struct {
	Kind  string // one of the Why kinds; "" is a failure the agent named no kind for
	Words string // the agent's own words, through OneLine, at most MaxWhy bytes
	// ResetsMs is when a usage or rate limit resets, ms since the epoch;
	// 0 when the agent did not say. Set by ResolveResets from Words when
	// the agent says it relative to now ("resets 2pm", "try again in 30s").
	ResetsMs int64
}

// The kinds of Why. Their order here is the docs' (docs/agents.md).
const (
	WhyLimit       = "limit"       // a usage or rate limit (with its reset when said)
	WhyAuth        = "auth"        // authentication: a bad key, an expired login
	WhyOverloaded  = "overloaded"  // the model overloaded, failing or unreachable
	WhyContext     = "context"     // the context window exceeded
	WhyTool        = "tool"        // a tool or a hook failed
	WhyEnded       = "ended"       // the process ended without a word (the host's liveness)
	WhyInterrupted = "interrupted" // the human interrupted the turn
)

// WhyKinds are the kinds, in order.
var WhyKinds = []string{WhyLimit, WhyAuth, WhyOverloaded, WhyContext, WhyTool, WhyEnded, WhyInterrupted}

// MaxWhy bounds a Why's words, in bytes.
const MaxWhy = 300

// maxWhyScan is how much of an agent's error text the classifier reads: a
// provider's body can be megabytes; its kind and reset are near the start.
const maxWhyScan = 8 << 10

// Label is the kind as a person reads it on a row: "usage limit",
// "authentication" … "failed" for a failure of no known kind.
func (w Why) Label() string {
	switch w.Kind {
	case WhyLimit:
		return "usage limit"
	case WhyAuth:
		return "authentication"
	case WhyOverloaded:
		return "model overloaded or unreachable"
	case WhyContext:
		return "context window exceeded"
	case WhyTool:
		return "tool or hook failure"
	case WhyEnded:
		return "ended without a word"
	case WhyInterrupted:
		return "interrupted"
	}
	return "failed"
}

// IsZero reports whether w says nothing.
func (w Why) IsZero() bool { return w == Why{} }

// ValidWhyKind reports whether k is a kind ("" included: no kind).
func ValidWhyKind(k string) bool {
	if k == "" {
		return true
	}
	for _, x := range WhyKinds {
		if x == k {
			return true
		}
	}
	return false
}

// Clean is w with its words through OneLine and MaxWhy, an unknown kind
// dropped and a reset outside the vocabulary's range (0 … state.MaxAt)
// dropped: what came from elsewhere (a peer on the mesh) is made fit to
// show.
func (w Why) Clean() Why {
	if !ValidWhyKind(w.Kind) {
		w.Kind = ""
	}
	w.Words = OneLine(w.Words, MaxWhy)
	if w.ResetsMs < 0 || w.ResetsMs > 253402300799999 {
		w.ResetsMs = 0
	}
	return w
}

// codeKinds are the error codes the agents name (Claude Code's and Qwen
// Code's StopFailure "error", Codex's codex_error_info, OpenCode's error
// names, the providers' error types), by kind. Lower case.
var codeKinds = map[string]string{
	"rate_limit": WhyLimit, "rate_limit_error": WhyLimit, "rate_limit_exceeded": WhyLimit,
	"usage_limit_exceeded": WhyLimit, "usage_limit_reached": WhyLimit, "billing_error": WhyLimit,
	"insufficient_quota": WhyLimit, "quota_exceeded": WhyLimit, "resource_exhausted": WhyLimit,
	"authentication_failed": WhyAuth, "authentication_error": WhyAuth, "unauthorized": WhyAuth,
	"unauthenticated": WhyAuth, "invalid_api_key": WhyAuth, "providerautherror": WhyAuth,
	"server_overloaded": WhyOverloaded, "overloaded_error": WhyOverloaded, "overloaded": WhyOverloaded,
	"server_error": WhyOverloaded, "internal_server_error": WhyOverloaded, "api_error": WhyOverloaded,
	"http_connection_failed": WhyOverloaded, "response_stream_connection_failed": WhyOverloaded,
	"response_stream_disconnected": WhyOverloaded, "unavailable": WhyOverloaded,
	"context_window_exceeded": WhyContext, "context_length_exceeded": WhyContext,
	"contextoverflowerror": WhyContext,
}

// wordKinds are the phrases of an error's text that name its kind, tried
// in this order (a context error's text may say "tokens"; a 429's may say
// "retry"): the first kind with a phrase found wins. A phrase "#NNN" is an
// HTTP status, found only as a number of its own ("API Error: 429", not
// "14290 tokens").
var wordKinds = []struct {
	kind    string
	phrases []string
}{
	{WhyContext, []string{"context window", "context length", "context_length", "context_window", "prompt is too long",
		"maximum context", "too many tokens", "input is too long", "exceeds the context", "token limit"}},
	{WhyAuth, []string{"#401", "unauthorized", "unauthenticated", "authentication", "invalid api key", "invalid x-api-key",
		"api key not valid", "not logged in", "please run /login", "oauth token", "incorrect api key", "invalid_api_key"}},
	{WhyLimit, []string{"#429", "rate limit", "rate_limit", "ratelimit", "usage limit", "usage_limit", "quota", "resource_exhausted",
		"too many requests", "session limit", "weekly limit", "credit balance"}},
	{WhyOverloaded, []string{"#529", "overloaded", "#503", "#502", "#504", "#500", "unavailable", "internal server error",
		"server error", "unable to connect", "connection refused", "econnrefused", "econnreset", "fetch failed",
		"timed out", "timeout", "network error", "socket hang up", "connection error"}},
}

// WhyOf is the Why of a failed turn from what the agent said of it: code,
// an error code it names (see codeKinds; "" or "unknown" names none), and
// words, its own text of the error (its message, its last output), which
// the row shows; more is other text of the same error that is read but
// not shown (a provider's raw body). The kind is the code's, else the
// first of wordKinds whose phrase the words or more hold; the words are
// kept one line, bounded (MaxWhy). A reset given as an absolute time (a
// Unix time after "|" or in a "resets_at" member) is read here; one
// relative to now is ResolveResets's.
func WhyOf(code, words string, more ...string) Why {
	w := Why{Kind: codeKinds[strings.ToLower(strings.TrimSpace(code))], Words: OneLine(words, MaxWhy)}
	scan := strings.ToLower(words[:min(len(words), maxWhyScan)])
	for _, m := range more {
		scan += "\n" + strings.ToLower(m[:min(len(m), maxWhyScan)])
	}
	if w.Kind == "" {
		for _, k := range wordKinds {
			for _, p := range k.phrases {
				if found(scan, p) {
					w.Kind = k.kind
					break
				}
			}
			if w.Kind != "" {
				break
			}
		}
	}
	if w.Kind == WhyLimit {
		if m := epochRE.FindStringSubmatch(scan); m != nil {
			if sec, err := strconv.ParseInt(m[1], 10, 64); err == nil {
				w.ResetsMs = sec * 1000
			}
		}
		if w.ResetsMs == 0 && len(more) > 0 {
			// A relative reset only more says: keep its words in sight
			// for ResolveResets.
			for _, m := range more {
				if _, said := Resets(w.Words, time.Unix(0, 0), time.UTC); said {
					break // the words say it already
				}
				if _, ok := Resets(m, time.Unix(0, 0), time.UTC); ok {
					if hint := resetHint(m); hint != "" {
						w.Words = OneLine(w.Words+" · "+hint, MaxWhy)
					}
					break
				}
			}
		}
	}
	return w
}

// resetHint is the part of s that says when a limit resets, as written.
func resetHint(s string) string {
	s = s[:min(len(s), maxWhyScan)]
	if m := inRE.FindStringSubmatch(s); m != nil {
		return "retry in " + strings.TrimSpace(m[1])
	}
	if loc := atRE.FindStringIndex(s); loc != nil {
		return s[loc[0]:loc[1]]
	}
	return ""
}

var (
	// epochRE: Claude Code's "Claude AI usage limit reached|1767114000",
	// Codex's and the providers' "resets_at": 1767114000.
	epochRE = regexp.MustCompile(`(?:\||resets_?at\W{0,4}|reset_at\W{0,4})(1[0-9]{9})\b`)
	// inRE: "try again in 2h 5m", "retry in 30.5s", "retryDelay": "30s",
	// "resets in 3 hours", "resets_in_seconds": 7200.
	inRE   = regexp.MustCompile(`(?i)(?:again in|retry in|retry after|resets? in|retrydelay\W{0,4}|resets_in_seconds\W{0,4}|retry-after\W{0,4})((?:\s*[0-9]+(?:\.[0-9]+)?\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)?\b,?(?:\s*and)?)+)`)
	partRE = regexp.MustCompile(`(?i)([0-9]+(?:\.[0-9]+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)?`)
	// atRE: "resets 2pm", "resets at 14:05", "try again at 2:05 PM",
	// "reset at 9am (Europe/Berlin)".
	atRE = regexp.MustCompile(`(?i)(?:resets?|again|retry)(?: at)?\s+([0-9]{1,2})(?::([0-9]{2}))?\s*(am|pm|a\.m\.|p\.m\.)?(?:\s*\(([A-Za-z_]+(?:/[A-Za-z_+\-]+)*)\))?`)
)

// ResolveResets is w with ResetsMs read from its words when it is a
// limit whose reset the words give relative to now: a duration ("try
// again in 2h 5m", "retryDelay": "30s") from now, or a clock time ("resets
// 2pm (Europe/Berlin)", "at 14:05") at its next occurrence after now, in
// the zone named beside it, else in loc. A reset already known, or words
// that give none, leave w as it is. Pure: now and loc are the caller's.
func (w Why) ResolveResets(now time.Time, loc *time.Location) Why {
	if w.Kind != WhyLimit || w.ResetsMs != 0 {
		return w
	}
	if at, ok := Resets(w.Words, now, loc); ok {
		w.ResetsMs = at.UnixMilli()
	}
	return w
}

// Resets reads when a limit resets from an agent's words, relative to now
// (see ResolveResets); ok is false when the words say nothing of it.
func Resets(words string, now time.Time, loc *time.Location) (time.Time, bool) {
	s := strings.ToLower(words[:min(len(words), maxWhyScan)])
	if m := epochRE.FindStringSubmatch(s); m != nil {
		if sec, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			return time.Unix(sec, 0), true
		}
	}
	if m := inRE.FindStringSubmatch(s); m != nil {
		var d time.Duration
		for _, p := range partRE.FindAllStringSubmatch(m[1], 8) {
			n, err := strconv.ParseFloat(p[1], 64)
			if err != nil || n < 0 || n > 1e6 {
				return time.Time{}, false
			}
			unit := time.Second
			switch {
			case strings.HasPrefix(p[2], "d"):
				unit = 24 * time.Hour
			case strings.HasPrefix(p[2], "h"):
				unit = time.Hour
			case strings.HasPrefix(p[2], "m"):
				unit = time.Minute
			}
			d += time.Duration(n * float64(unit))
		}
		if d > 0 && d <= 366*24*time.Hour {
			return now.Add(d).Truncate(time.Second), true
		}
	}
	if m := atRE.FindStringSubmatch(words[:min(len(words), maxWhyScan)]); m != nil {
		hour, _ := strconv.Atoi(m[1])
		minute := 0
		if m[2] != "" {
			minute, _ = strconv.Atoi(m[2])
		}
		switch ampm := strings.ToLower(strings.ReplaceAll(m[3], ".", "")); {
		case ampm == "" && m[2] == "":
			return time.Time{}, false // "resets 3": not a time
		case ampm != "" && (hour < 1 || hour > 12):
			return time.Time{}, false
		case ampm == "pm" && hour != 12:
			hour += 12
		case ampm == "am" && hour == 12:
			hour = 0
		}
		if hour > 23 || minute > 59 {
			return time.Time{}, false
		}
		if m[4] != "" {
			if l, err := time.LoadLocation(m[4]); err == nil {
				loc = l
			}
		}
		if loc == nil {
			loc = time.Local
		}
		n := now.In(loc)
		at := time.Date(n.Year(), n.Month(), n.Day(), hour, minute, 0, 0, loc)
		if !at.After(now) {
			at = at.AddDate(0, 0, 1)
		}
		return at, true
	}
	return time.Time{}, false
}

// found reports whether phrase is in s; a "#NNN" phrase only as a number
// of its own (no digit either side).
func found(s, phrase string) bool {
	code, ok := strings.CutPrefix(phrase, "#")
	if !ok {
		return strings.Contains(s, phrase)
	}
	for i := 0; ; {
		j := strings.Index(s[i:], code)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(code)
		if (j == 0 || !isDigit(s[j-1])) && (end == len(s) || !isDigit(s[end])) {
			return true
		}
		i = j + 1
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
