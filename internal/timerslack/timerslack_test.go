package timerslack

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseEnv(t *testing.T) {
	for _, tc := range []struct {
		v       string
		off     bool
		wantErr bool
	}{
		{"", false, false},
		{"off", true, false},
		{"OFF", false, true},
		{"0", false, true},
		{"1ms", false, true},
		{" off", false, true},
		{"off\n", false, true},
		{"\u202eoff", false, true},
		{strings.Repeat("x", 100<<10), false, true}, // quoted in part, not whole
	} {
		off, err := parseEnv(tc.v)
		if off != tc.off || (err != nil) != tc.wantErr {
			t.Errorf("parseEnv(%q) = %v, %v; want %v, error %v", tc.v, off, err, tc.off, tc.wantErr)
		}
		if err != nil && (!strings.Contains(err.Error(), Env) || strings.ContainsAny(err.Error(), "\n\u202e") || len(err.Error()) > 300) {
			t.Errorf("parseEnv(%.40q): %.400q must name %s on one short line, the value quoted", tc.v, err, Env)
		}
	}
}

func TestRelaxRefusesABadValue(t *testing.T) {
	err := Relax(func(k string) string {
		if k == Env {
			return "1ms"
		}
		return ""
	}, func(string) error { return nil })
	if err == nil {
		t.Fatal("Relax with NOTCH_WEB_TIMER_SLACK=1ms = nil, want an error")
	}
}

// The mark is Relax's own only when it is what Relax writes: a count of
// nanoseconds below Slack (Relax executes the program again only from a
// slack below it), in plain digits. Anything else — a caller's, garbage,
// a slack of seconds — is not a mark.
func TestParseGiven(t *testing.T) {
	for v, want := range map[string]int64{
		"50000": 50000, "1": 1, "999999": 999999,
		"0": 0, "-5": 0, "": 0, "5e4": 0, " 50000": 0, "+50000": 0, "050000": 0,
		"99999999999999999999": 0, "50000\n": 0, "a\nbc": 0,
		"1000000": 0, "5000000000": 0, // a slack of 1 ms, 5 s: never Relax's
	} {
		if got, ok := parseGiven(v); got != want || ok != (want > 0) {
			t.Errorf("parseGiven(%q) = %d, %v; want %d", v, got, ok, want)
		}
	}
}

// The mark comes from the environment: any string gives a slack in (0,
// Slack) or none, and never panics.
func FuzzParseGiven(f *testing.F) {
	for _, s := range []string{
		"50000",               // Relax's own mark: the kernel's default slack
		"0",                   // no slack: not a mark
		"-1",                  // a sign
		"x",                   // not a number
		"9223372036854775807", // the largest int64
		"5000000000",          // 5 s: a caller's, bounded out
		"a\nbc",               // a line break
		"0050000",             // leading zeros: not as Relax writes it
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		n, ok := parseGiven(v)
		if ok != (n > 0) || n < 0 || n >= Slack.Nanoseconds() {
			t.Fatalf("parseGiven(%q) = %d, %v", v, n, ok)
		}
		if ok && strconv.FormatInt(n, 10) != v {
			t.Fatalf("parseGiven(%q) = %d: not the text Relax writes", v, n)
		}
	})
}
