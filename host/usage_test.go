package host

import (
	"errors"
	"testing"
	"time"

	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

func TestParseStatuslineReport(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"everything", `{"session":"s","fiveHour":{"usedPct":23.5,"resetsAt":1738425600},"sevenDay":{"usedPct":41},"costUsd":0.42,"contextWindow":{"size":200000,"usedPct":42}}`, true},
		{"the session alone", `{"session":"s"}`, true},
		{"a little over 100 % is clamped", `{"session":"s","fiveHour":{"usedPct":101}}`, true},
		{"no session", `{"fiveHour":{"usedPct":1}}`, false},
		{"a control character in the session", `{"session":"a\u0007b"}`, false},
		{"an unknown field", `{"session":"s","token":"x"}`, false},
		{"a negative percentage", `{"session":"s","sevenDay":{"usedPct":-1}}`, false},
		{"a window of no size", `{"session":"s","contextWindow":{"size":0}}`, false},
		{"the tokens in use", `{"session":"s","contextWindow":{"size":1000000,"usedPct":0,"tokens":2000}}`, true},
		{"negative tokens in use", `{"session":"s","contextWindow":{"size":1000000,"tokens":-1}}`, false},
		{"a negative cost", `{"session":"s","costUsd":-0.5}`, false},
		{"two objects", `{"session":"s"}{"session":"t"}`, false},
		{"not JSON", `session=s`, false},
		{"a stray brace after it", `{"session":"s"}}`, false},
		{"a key twice", `{"session":"s","costUsd":0.1,"costUsd":99}`, false},
		{"a reset in the year 9999", `{"session":"s","fiveHour":{"usedPct":1,"resetsAt":253402300799}}`, true},
		{"a reset with a five-digit year", `{"session":"s","fiveHour":{"usedPct":1,"resetsAt":253402300800}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseStatuslineReport([]byte(tc.in))
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok %v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrReport) {
				t.Errorf("err %v is not ErrReport", err)
			}
			if tc.name == "a little over 100 % is clamped" && r.FiveHour.UsedPct != 100 {
				t.Errorf("usedPct %v", r.FiveHour.UsedPct)
			}
		})
	}
}

func FuzzParseStatuslineReport(f *testing.F) {
	f.Add(`{"session":"s","fiveHour":{"usedPct":23.5,"resetsAt":1738425600},"costUsd":0.42,"contextWindow":{"size":200000,"usedPct":42}}`) // complete
	f.Add(`{"session":"s"}`)                                                                                                               // least
	f.Add(`{"session":"s","fiveHour":{"usedPct":1e309}}`)                                                                                  // out of range
	f.Add(`{"session":"s","sevenDay":{"usedPct":1,"resetsAt":1099511627776}}`)                                                             // a five-digit year
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ParseStatuslineReport([]byte(in))
		if err != nil {
			return
		}
		for _, w := range []*ReportWindow{r.FiveHour, r.SevenDay} {
			if w != nil && (w.UsedPct < 0 || w.UsedPct > 100) {
				t.Fatalf("usedPct %v taken", w.UsedPct)
			}
			if w != nil && (w.ResetsAt < 0 || w.ResetsAt*1000 > state.MaxAt) {
				t.Fatalf("resetsAt %v taken", w.ResetsAt)
			}
		}
		if c := r.ContextWindow; c != nil && c.Tokens != nil && *c.Tokens < 0 {
			t.Fatalf("tokens %v taken", *c.Tokens)
		}
		if !state.ValidSessionID(r.Session) {
			t.Fatalf("session %q taken", r.Session)
		}
	})
}

// TestBoardReport: a report is kept for a session on the board (and wakes
// the pages), refused for one that is not; the plan windows are the latest
// report's.
func TestBoardReport(t *testing.T) {
	b := NewBoard(BoardConfig{}, false, settings.NewService(settings.Options{}))
	now := time.UnixMilli(1_800_000_000_000)
	if _, err := b.Ingest([]state.Event{{Type: "session.opened", Session: "s", Cwd: "/a"}}, now); err != nil {
		t.Fatal(err)
	}
	if b.Report(StatuslineReport{Session: "nope"}, now) {
		t.Error("a report for a session not on the board was kept")
	}
	v0 := b.Version()
	pct := 42.0
	if !b.Report(StatuslineReport{Session: "s", FiveHour: &ReportWindow{UsedPct: 23, ResetsAt: 1_800_000_100}, ContextWindow: &ReportContext{Size: 200000, UsedPct: &pct}}, now) {
		t.Fatal("refused")
	}
	if b.Version() == v0 {
		t.Error("a report did not change the board's version")
	}
	u := b.Usage()
	if !u.Reported || u.FiveHour == nil || u.FiveHour.ResetsAtMs != 1_800_000_100_000 || u.SevenDay != nil || u.Sessions["s"].WindowSize != 200000 {
		t.Errorf("usage %+v", u)
	}
	b.Report(StatuslineReport{Session: "s"}, now)
	if u := b.Usage(); u.FiveHour != nil || !u.Reported {
		t.Errorf("a report without windows left them: %+v", u)
	}
}
