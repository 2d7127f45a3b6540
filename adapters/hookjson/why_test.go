package hookjson

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
)

func TestWhyOf(t *testing.T) {
	for _, tc := range []struct {
		name, code, words string
		kind              string
		resetsMs          int64
	}{
		{"claude code's 429 code", "rate_limit", "API Error: 429 rate limited", WhyLimit, 0},
		{"claude code's unknown code, words decide", "unknown", "API Error: 400 stand-in: scripted bad request (scenario:error400)", "", 0},
		{"claude code's auth code", "authentication_failed", "Invalid API key · Please run /login", WhyAuth, 0},
		{"an old claude usage limit with its epoch", "", "Claude AI usage limit reached|1796400000", WhyLimit, 1796400000000},
		{"codex's context code", "context_window_exceeded", "Codex ran out of room in the model's context window.", WhyContext, 0},
		{"codex's usage limit body", "", `{"error":{"type":"usage_limit_reached","resets_at":1796400000}}`, WhyLimit, 1796400000000},
		{"a 529 in words", "", "API Error: 529 {\"type\":\"overloaded_error\"}", WhyOverloaded, 0},
		{"gemini's quota", "", `[API Error: {"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}]`, WhyLimit, 0},
		{"a prompt too long", "invalid_request", "Prompt is too long: 250000 tokens > 200000 maximum", WhyContext, 0},
		{"a count is not a status", "", "used 14290 tokens of 5000", "", 0},
		{"refused connection", "", "Unable to connect to API (ECONNREFUSED)", WhyOverloaded, 0},
		{"opencode's auth error name", "ProviderAuthError", "missing key", WhyAuth, 0},
		{"nothing at all", "", "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := WhyOf(tc.code, tc.words)
			if w.Kind != tc.kind || w.ResetsMs != tc.resetsMs {
				t.Errorf("WhyOf(%q, %q) = kind %q resets %d, want %q %d", tc.code, tc.words, w.Kind, w.ResetsMs, tc.kind, tc.resetsMs)
			}
		})
	}
}

func TestResets(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	now := time.Date(2026, 12, 7, 12, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		words string
		want  time.Time // zero: none
	}{
		{"You've hit your session limit · resets 2pm (Europe/Berlin)", time.Date(2026, 12, 7, 14, 0, 0, 0, berlin)},
		{"usage limit · resets 2:05 PM", time.Date(2026, 12, 7, 14, 5, 0, 0, time.UTC)},
		{"try again at 11am", time.Date(2026, 12, 8, 11, 0, 0, 0, time.UTC)}, // passed today: tomorrow
		{"resets at 14:05", time.Date(2026, 12, 7, 14, 5, 0, 0, time.UTC)},
		{"Please try again in 2h 5m.", now.Add(2*time.Hour + 5*time.Minute)},
		{`"retryDelay": "30s"`, now.Add(30 * time.Second)},
		{`"resets_in_seconds": 7200`, now.Add(2 * time.Hour)},
		{"limit|1796400000", time.Unix(1796400000, 0)},
		{"resets 3", time.Time{}},
		{"resets 13pm", time.Time{}},
		{"resets at 25:00", time.Time{}},
		{"no word of it", time.Time{}},
		{"try again in 99999999 days", time.Time{}},
	} {
		at, ok := Resets(tc.words, now, time.UTC)
		if ok != !tc.want.IsZero() || ok && !at.Equal(tc.want) {
			t.Errorf("Resets(%q) = %v %v, want %v", tc.words, at, ok, tc.want)
		}
	}
	w := Why{Kind: WhyLimit, Words: "resets 2pm (Europe/Berlin)"}.ResolveResets(now, time.UTC)
	if w.ResetsMs != time.Date(2026, 12, 7, 14, 0, 0, 0, berlin).UnixMilli() {
		t.Errorf("ResolveResets: %d", w.ResetsMs)
	}
	if w := (Why{Kind: WhyAuth, Words: "resets 2pm"}).ResolveResets(now, time.UTC); w.ResetsMs != 0 {
		t.Errorf("an auth failure got a reset: %d", w.ResetsMs)
	}
}

func TestWhyCleanAndLabel(t *testing.T) {
	w := Why{Kind: "bogus", Words: "a\u202ebidi\nline" + strings.Repeat("x", 1000), ResetsMs: -1}.Clean()
	if w.Kind != "" || w.ResetsMs != 0 || len(w.Words) > MaxWhy || textrule.Has(w.Words) {
		t.Errorf("Clean = %+v", w)
	}
	for _, k := range WhyKinds {
		if (Why{Kind: k}).Label() == "failed" {
			t.Errorf("kind %q has no label", k)
		}
	}
}

// FuzzWhyOf: any code and words give a valid, bounded, text-ruled Why, and
// Resets never panics nor gives a time before now (but a stated epoch).
func FuzzWhyOf(f *testing.F) {
	f.Add("rate_limit", "API Error: 429 · resets 2pm (Europe/Berlin)") // Claude Code's StopFailure
	f.Add("", "Claude AI usage limit reached|1796400000")              // the old form, an epoch
	f.Add("usage_limit_exceeded", "try again in 2 days 3 hours")       // Codex
	f.Add("", `{"error":{"code":429,"details":[{"retryDelay":"30.5s"}]}}`)
	f.Add("", "resets at 99:99 (Not/AZone)")
	f.Add("\x00", "\u202e\xff\xfe")
	f.Fuzz(func(t *testing.T, code, words string) {
		w := WhyOf(code, words)
		if !ValidWhyKind(w.Kind) || len(w.Words) > MaxWhy || !utf8.ValidString(w.Words) || textrule.Has(w.Words) {
			t.Fatalf("WhyOf(%q, %q) = %+v", code, words, w)
		}
		now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
		if at, ok := Resets(words, now, time.UTC); ok && at.Before(now) && !epochRE.MatchString(strings.ToLower(words)) {
			t.Fatalf("Resets(%q) = %v, before now", words, at)
		}
		if c := w.Clean(); c != w {
			t.Fatalf("Clean changed a WhyOf: %+v → %+v", w, c)
		}
	})
}
