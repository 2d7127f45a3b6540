package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
)

// A statusLine payload as Claude Code 2.1 hands it (subscriber, after the
// first reply).
const statusJSON = `{"session_id":"5f1c0c0e-1111-4222-8333-944445555666","cwd":"/src/app",
"model":{"id":"claude-opus-4-5","display_name":"Opus 4.5"},
"cost":{"total_cost_usd":0.4213,"total_duration_ms":60000},
"context_window":{"context_window_size":200000,"used_percentage":42.4},
"rate_limits":{"five_hour":{"used_percentage":23.5,"resets_at":1738425600},
"seven_day":{"used_percentage":41.2,"resets_at":"2026-04-03T00:00:00Z"}}}`

func TestParseStatusInput(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	i := func(x int64) *int64 { return &x }
	for _, tc := range []struct {
		name string
		in   string
		ok   bool
		want host.StatuslineReport
	}{
		{"everything", statusJSON, true, host.StatuslineReport{
			Session:       "5f1c0c0e-1111-4222-8333-944445555666",
			FiveHour:      &host.ReportWindow{UsedPct: 23.5, ResetsAt: 1738425600},
			SevenDay:      &host.ReportWindow{UsedPct: 41.2, ResetsAt: 1775174400},
			CostUSD:       f(0.4213),
			ContextWindow: &host.ReportContext{Size: 200000, UsedPct: f(42.4)},
		}},
		{"API key: no rate limits", `{"session_id":"s","cost":{"total_cost_usd":0},"context_window":{"context_window_size":200000}}`, true,
			host.StatuslineReport{Session: "s", CostUSD: f(0), ContextWindow: &host.ReportContext{Size: 200000}}},
		// What 2.1.328 hands an API-key user after a reply (the conformance
		// suite's capture): no rate_limits; the percentage a whole number,
		// 0 for 2,000 tokens of a 1M window; the last reply's usage.
		{"API key, 2.1.328: the tokens in use from current_usage", `{"session_id":"s","cost":{"total_cost_usd":0.00824},"context_window":{"total_input_tokens":2000,"total_output_tokens":12,"context_window_size":1000000,"current_usage":{"input_tokens":1500,"output_tokens":12,"cache_creation_input_tokens":400,"cache_read_input_tokens":100},"used_percentage":0,"remaining_percentage":100}}`, true,
			host.StatuslineReport{Session: "s", CostUSD: f(0.00824), ContextWindow: &host.ReportContext{Size: 1000000, UsedPct: f(0), Tokens: i(2000)}}},
		{"before the first reply: current_usage null", `{"session_id":"s","context_window":{"context_window_size":1000000,"current_usage":null,"used_percentage":null}}`, true,
			host.StatuslineReport{Session: "s", ContextWindow: &host.ReportContext{Size: 1000000}}},
		{"nonsense usage is left out", `{"session_id":"s","context_window":{"context_window_size":1000000,"current_usage":{"input_tokens":-5}}}`, true,
			host.StatuslineReport{Session: "s", ContextWindow: &host.ReportContext{Size: 1000000}}},
		{"a window without its percentage is no window", `{"session_id":"s","rate_limits":{"five_hour":{"resets_at":1}}}`, true,
			host.StatuslineReport{Session: "s"}},
		{"resets_at in ms, or unreadable", `{"session_id":"s","rate_limits":{"five_hour":{"used_percentage":1,"resets_at":1738425600000},"seven_day":{"used_percentage":2,"resets_at":"soon"}}}`, true,
			host.StatuslineReport{Session: "s", FiveHour: &host.ReportWindow{UsedPct: 1, ResetsAt: 1738425600}, SevenDay: &host.ReportWindow{UsedPct: 2}}},
		{"nonsense numbers are left out", `{"session_id":"s","cost":{"total_cost_usd":-1},"context_window":{"context_window_size":0,"used_percentage":5},"rate_limits":{"five_hour":{"used_percentage":-3}}}`, true,
			host.StatuslineReport{Session: "s"}},
		{"a session id with a newline is hashed", `{"session_id":"a\nb"}`, true, host.StatuslineReport{Session: "h:"}},
		{"no session", `{"cost":{"total_cost_usd":1}}`, false, host.StatuslineReport{}},
		{"not JSON", `hello`, false, host.StatuslineReport{}},
		{"wrong types", `{"session_id":5}`, false, host.StatuslineReport{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got, ok := parseStatusInput([]byte(tc.in))
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if tc.want.Session == "h:" {
				if !strings.HasPrefix(got.Session, "h:") {
					t.Errorf("session %q, want a hashed id", got.Session)
				}
				return
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tc.want)
			if ok && !bytes.Equal(gj, wj) {
				t.Errorf("report\n got %s\nwant %s", gj, wj)
			}
			// Whatever it makes of it, the host takes it.
			if ok {
				if _, err := host.ParseStatuslineReport(gj); err != nil {
					t.Errorf("the host refuses it: %v", err)
				}
			}
		})
	}
}

func FuzzParseStatusInput(f *testing.F) {
	f.Add(statusJSON)                                                                                // a subscriber's, complete
	f.Add(`{"session_id":"s"}`)                                                                      // the least that reports
	f.Add(`{"session_id":"s","rate_limits":{"five_hour":{"used_percentage":1e308,"resets_at":-1}}}`) // extremes
	f.Add(`{"session_id":"\u0000","context_window":{"context_window_size":1e300}}`)                  // hostile
	f.Fuzz(func(t *testing.T, in string) {
		_, r, ok := parseStatusInput([]byte(in))
		if !ok {
			return
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := host.ParseStatuslineReport(b); err != nil {
			t.Fatalf("the host refuses what the statusline makes of %q: %v", in, err)
		}
	})
}

// runSL runs "notch-web statusline args…" with input on stdin.
func runSL(t *testing.T, input string, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(string) string { return "" }
	if err := runStatusline(context.Background(), args, getenv, strings.NewReader(input), &out, &errb); err != nil {
		t.Fatalf("statusline: %v (stderr %q)", err, errb.String())
	}
	return out.String(), errb.String()
}

func chainArg(cmd string) string { return base64.RawURLEncoding.EncodeToString([]byte(cmd)) }

// deadURL is a loopback address nothing listens on.
func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String()
	l.Close()
	return u
}

func TestStatuslineChainsTheUsersLine(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh")
	}
	dead := deadURL(t)
	// The user's line, colours and all, byte for byte; nothing else.
	out, errOut := runSL(t, statusJSON, "--url", dead, "--chain", chainArg(`printf '\033[1mmain\033[0m  %s' "$(cat | wc -c | tr -d ' ')"`))
	want := "\x1b[1mmain\x1b[0m  " + itoa(len(statusJSON))
	if out != want {
		t.Errorf("stdout %q, want %q (the chained command's, with the same JSON on stdin)", out, want)
	}
	if errOut != "" {
		t.Errorf("stderr %q, want nothing", errOut)
	}
	// Without a chained command: a short line of its own.
	out, errOut = runSL(t, statusJSON, "--url", dead)
	if out != "Opus 4.5 · ctx 42% · 5h 24% · 7d 41% · $0.42\n" || errOut != "" {
		t.Errorf("own line %q (stderr %q)", out, errOut)
	}
	// Input it cannot read still gets the user's line.
	out, _ = runSL(t, "not json", "--url", dead, "--chain", chainArg("echo mine"))
	if out != "mine\n" {
		t.Errorf("stdout %q, want the user's line", out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestStatuslineReportsToTheHost(t *testing.T) {
	got := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/agents-notch/statusline" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s %s", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		b, _ := io.ReadAll(r.Body)
		got <- b
	}))
	defer srv.Close()
	runSL(t, statusJSON, "--url", srv.URL)
	select {
	case b := <-got:
		r, err := host.ParseStatuslineReport(b)
		if err != nil {
			t.Fatal(err)
		}
		if r.FiveHour == nil || r.FiveHour.UsedPct != 23.5 || r.ContextWindow.Size != 200000 || *r.CostUSD != 0.4213 {
			t.Errorf("report %s", b)
		}
	default:
		t.Fatal("the host got no report")
	}
}

// TestStatuslineNeverBlocks: a host that takes the report and never
// answers costs the line nothing but the budget — the command is back
// while the host still holds the request — and nothing is printed about it.
func TestStatuslineNeverBlocks(t *testing.T) {
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	done := make(chan string, 1)
	go func() {
		var out, errb bytes.Buffer
		_ = runStatusline(context.Background(), []string{"--url", srv.URL}, func(string) string { return "" }, strings.NewReader(statusJSON), &out, &errb)
		done <- out.String() + "|" + errb.String()
	}()
	select {
	case got := <-done:
		if got != "Opus 4.5 · ctx 42% · 5h 24% · 7d 41% · $0.42\n|" {
			t.Errorf("output %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the statusline waited for a host that does not answer")
	}
	// It was the host that was slow, not a report never sent. (On a loaded
	// machine the connection itself may miss the 50 ms; then nothing
	// arrives and there is nothing to check.)
	select {
	case <-arrived:
	default:
		t.Log("the report did not reach the host within the budget")
	}
}

func TestStatuslineUsage(t *testing.T) {
	var out, errb bytes.Buffer
	err := runStatusline(context.Background(), []string{"--chain", "%%%"}, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	if err == nil || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "--chain") {
		t.Errorf("err %v, stderr %q: want one clear line", err, errb.String())
	}
}

// A stdin that is never closed (the JSON written, or half of it, and the
// pipe left open) does not hang the statusline: after a short read
// deadline the user's line is printed unchanged, with what came on its
// stdin, and the command returns without an error.
func TestStatuslineStdinNeverClosed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh")
	}
	dead := deadURL(t)
	for _, tc := range []struct {
		name, written, chain, want string
	}{
		{"the whole JSON, chained", statusJSON, `printf 'mine %s' "$(wc -c | tr -d ' ')"`, "mine " + itoa(len(statusJSON))},
		{"half of it, chained", statusJSON[:20], `printf 'mine %s' "$(wc -c | tr -d ' ')"`, "mine 20"},
		{"nothing, chained", "", "echo mine", "mine\n"},
		{"the whole JSON, its own line", statusJSON, "", "Opus 4.5 · ctx 42% · 5h 24% · 7d 41% · $0.42\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close() // only once the command is back: never while it reads
			go pw.Write([]byte(tc.written))
			args := []string{"--url", dead}
			if tc.chain != "" {
				args = append(args, "--chain", chainArg(tc.chain))
			}
			done := make(chan error, 1)
			var out, errb bytes.Buffer
			go func() {
				done <- runStatusline(context.Background(), args, func(string) string { return "" }, pr, &out, &errb)
			}()
			if err := <-done; err != nil {
				t.Fatalf("statusline: %v", err)
			}
			if out.String() != tc.want || errb.String() != "" {
				t.Errorf("stdout %q (stderr %q), want %q", out.String(), errb.String(), tc.want)
			}
		})
	}
}
