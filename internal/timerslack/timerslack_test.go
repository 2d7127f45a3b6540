package timerslack

import (
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
	} {
		off, err := parseEnv(tc.v)
		if off != tc.off || (err != nil) != tc.wantErr {
			t.Errorf("parseEnv(%q) = %v, %v; want %v, error %v", tc.v, off, err, tc.off, tc.wantErr)
		}
		if err != nil && (!strings.Contains(err.Error(), Env) || strings.ContainsAny(err.Error(), "\n\u202e")) {
			t.Errorf("parseEnv(%q): %q must name %s on one line, the value quoted", tc.v, err, Env)
		}
	}
}

// The program executed again removes the mark at once, and does not
// execute itself again whatever its slack.
func TestRelaxAgainUnsetsTheMark(t *testing.T) {
	defer func() { given = 0 }()
	env := map[string]string{again: "50000", Env: "nonsense"}
	err := Relax(func(k string) string { return env[k] }, func(k string) error { delete(env, k); return nil })
	if err != nil || env[again] != "" {
		t.Fatalf("Relax after a re-execution = %v, mark %q; want nil and no mark", err, env[again])
	}
	if given != 50000 {
		t.Errorf("the slack it was given: %d, want 50000", given)
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

func TestParseGiven(t *testing.T) {
	for v, want := range map[string]int64{
		"50000": 50000, "1": 1, "0": 0, "-5": 0, "": 0, "5e4": 0, " 50000": 0,
		"99999999999999999999": 0, "50000\n": 0,
	} {
		if got := parseGiven(v); got != want {
			t.Errorf("parseGiven(%q) = %d, want %d", v, got, want)
		}
	}
}

// The mark comes from the environment: any string gives a positive slack
// or none, and never panics.
func FuzzParseGiven(f *testing.F) {
	for _, s := range []string{"50000", "0", "-1", "x", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if n := parseGiven(v); n < 0 {
			t.Fatalf("parseGiven(%q) = %d", v, n)
		}
	})
}
