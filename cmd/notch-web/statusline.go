package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/relay"
	"github.com/notch-web/notch-web/host"
)

// statuslineBudget is all the time "notch-web statusline" adds to Claude
// Code's statusline: the report to the host gets what is left of it after
// the line is printed, and is dropped when it runs out.
const statuslineBudget = 50 * time.Millisecond

// maxStatuslineInput bounds what is read of the statusLine JSON.
const maxStatuslineInput = 1 << 20

// statuslineRead bounds the wait for stdin to end (Claude Code closes it
// once the statusLine JSON is written): a stdin never closed costs the
// line this long, then the line is printed from whatever came — the
// user's own, unchanged — and the command exits 0.
const statuslineRead = 250 * time.Millisecond

const statuslineUsage = `usage: notch-web statusline [--url URL] [--chain B64]

Claude Code's statusLine command (set up by "notch-web hooks install
claude-code --statusline"). It reads the statusLine JSON on stdin and prints
the line of the command it chains (the one that was there, base64 in
--chain) unchanged, or a short line of its own; and it tells the host the
plan's 5-hour and 7-day usage, the session's cost and its context window.
It never waits for the host longer than 50 ms and prints nothing about it:
a host that is down or slow costs the line nothing. A stdin that is never
closed is read for 250 ms at most; the line is then made from what came. It reads no token and
no keychain: only what Claude Code hands every statusline.

URL is --url, else $NOTCH_URL, else the host serving the DSH home
(--dsh-home, else $DSH_HOME, else ~/.dsh), else http://` + DefaultAddr + `.
`

// statusInput is what notch-web reads of Claude Code's statusLine JSON.
type statusInput struct {
	SessionID string `json:"session_id"`
	Model     struct {
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Cost struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
	} `json:"cost"`
	ContextWindow struct {
		Size    *float64 `json:"context_window_size"`
		UsedPct *float64 `json:"used_percentage"`
		// Current is the last reply's usage: its input, cached or not, is
		// the context in use (Claude Code's own used_percentage is a whole
		// number, 0 until a 1M window is 1 % full).
		Current *struct {
			Input         *float64 `json:"input_tokens"`
			CacheCreation *float64 `json:"cache_creation_input_tokens"`
			CacheRead     *float64 `json:"cache_read_input_tokens"`
		} `json:"current_usage"`
	} `json:"context_window"`
	RateLimits struct {
		FiveHour *statusWindow `json:"five_hour"`
		SevenDay *statusWindow `json:"seven_day"`
	} `json:"rate_limits"`
}

type statusWindow struct {
	UsedPct  *float64        `json:"used_percentage"`
	ResetsAt json.RawMessage `json:"resets_at"`
}

// parseStatusInput turns Claude Code's statusLine JSON into the host's
// report. Fields that are missing, or of a shape not understood, are left
// out (never guessed); ok is false when there is no session to report on.
func parseStatusInput(src []byte) (in statusInput, r host.StatuslineReport, ok bool) {
	if err := json.Unmarshal(src, &in); err != nil {
		return in, r, false
	}
	r.Session = hookjson.ID(in.SessionID)
	if r.Session == "" {
		return in, r, false
	}
	r.FiveHour = reportWindow(in.RateLimits.FiveHour)
	r.SevenDay = reportWindow(in.RateLimits.SevenDay)
	if c := in.Cost.TotalCostUSD; c != nil && *c >= 0 && !math.IsInf(*c, 0) {
		r.CostUSD = c
	}
	if s := in.ContextWindow.Size; s != nil && *s >= 1 && *s <= 1<<40 {
		r.ContextWindow = &host.ReportContext{Size: int64(*s)}
		if p := in.ContextWindow.UsedPct; p != nil && *p >= 0 && *p <= 1000 {
			r.ContextWindow.UsedPct = p
		}
		if u := in.ContextWindow.Current; u != nil && u.Input != nil {
			n, ok := 0.0, true
			for _, p := range []*float64{u.Input, u.CacheCreation, u.CacheRead} {
				if p != nil {
					ok = ok && *p >= 0 && *p <= 1<<40
					n += *p
				}
			}
			if ok && n > 0 {
				t := int64(n)
				r.ContextWindow.Tokens = &t
			}
		}
	}
	return in, r, true
}

// reportWindow is a rate-limit window as the host takes it: a percentage,
// and its reset time in seconds since the epoch (given as a number, or as
// an RFC 3339 string).
func reportWindow(w *statusWindow) *host.ReportWindow {
	if w == nil || w.UsedPct == nil || *w.UsedPct < 0 || *w.UsedPct > 1000 {
		return nil
	}
	out := &host.ReportWindow{UsedPct: *w.UsedPct}
	var n float64
	var s string
	switch {
	case json.Unmarshal(w.ResetsAt, &n) == nil && n > 0 && n < 1e14:
		if n > 1e11 { // milliseconds
			n /= 1000
		}
		out.ResetsAt = int64(n)
	case json.Unmarshal(w.ResetsAt, &s) == nil:
		if t, err := time.Parse(time.RFC3339, s); err == nil && t.Unix() > 0 {
			out.ResetsAt = t.Unix()
		}
	}
	return out
}

// ownLine is the statusline notch-web prints when it chains nothing:
// model · context · 5h · 7d · cost, whatever of it is known.
func ownLine(in statusInput, r host.StatuslineReport) string {
	var parts []string
	if m := strings.TrimSpace(hookjson.Clean(in.Model.DisplayName, 80)); m != "" {
		parts = append(parts, m)
	}
	pct := func(p float64) string { return strconv.FormatFloat(math.Round(p), 'f', 0, 64) + "%" }
	if c := r.ContextWindow; c != nil && c.UsedPct != nil {
		parts = append(parts, "ctx "+pct(*c.UsedPct))
	}
	if w := r.FiveHour; w != nil {
		parts = append(parts, "5h "+pct(w.UsedPct))
	}
	if w := r.SevenDay; w != nil {
		parts = append(parts, "7d "+pct(w.UsedPct))
	}
	if c := r.CostUSD; c != nil {
		parts = append(parts, "$"+strconv.FormatFloat(*c, 'f', 2, 64))
	}
	if len(parts) == 0 {
		return "notch"
	}
	return strings.Join(parts, " · ")
}

// runStatusline is "notch-web statusline". It fails only on its own usage;
// everything about the host is silent.
func runStatusline(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	err := statusline(ctx, args, getenv, stdin, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "notch-web %v\n", err)
	}
	return err
}

func statusline(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	start := time.Now()
	fs := flag.NewFlagSet("notch-web statusline", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g := addGlobals(fs)
	chain := fs.String("chain", "", "the previous statusLine command, base64 (RawURL)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, fit(statuslineUsage))
			return nil
		}
		return fmt.Errorf("statusline: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("statusline: unexpected arguments %q", fs.Args())
	}
	prev, err := decodeChain(*chain)
	if err != nil {
		return fmt.Errorf("statusline: --chain: %w", err)
	}
	src := readStatusInput(stdin, statuslineRead)
	in, report, ok := parseStatusInput(src)

	// The report goes out while the line is made; it gets what is left of
	// the budget once the line is out, and no more.
	ctx, cancel := context.WithDeadline(ctx, start.Add(statuslineBudget))
	defer cancel()
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		if ok {
			_ = postReport(ctx, g.hostURL(getenv), report)
		}
	}()

	if prev != "" {
		runChained(prev, src, stdout, stderr)
	} else {
		fmt.Fprintln(stdout, ownLine(in, report))
	}
	select {
	case <-sent:
	case <-ctx.Done():
	}
	return nil
}

// readStatusInput is what came on stdin: up to maxStatuslineInput bytes,
// read until stdin ends or wait has passed, whichever is first. A read
// cannot be cancelled: if stdin never ends, its goroutine is left to the
// process's exit, which follows at once.
func readStatusInput(stdin io.Reader, wait time.Duration) []byte {
	var mu sync.Mutex
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(lockedWriter{&mu, &got}, io.LimitReader(stdin, maxStatuslineInput))
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	mu.Lock()
	defer mu.Unlock()
	return bytes.Clone(got.Bytes())
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// decodeChain reads --chain: the previous command, base64 (RawURL, so the
// argument needs no quoting in a shell).
func decodeChain(b64 string) (string, error) {
	if b64 == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil {
		return "", errors.New("not base64")
	}
	return string(b), nil
}

// runChained runs the user's own statusline command as Claude Code would —
// through the shell, the same JSON on stdin — and passes its output through
// unchanged. Its time is its own: the budget is for what notch-web adds.
func runChained(command string, input []byte, stdout, stderr io.Writer) {
	cmd := exec.Command("sh", "-c", command)
	if runtime.GOOS == "windows" {
		cmd = exec.Command("cmd", "/C", command)
	}
	cmd.Stdin = bytes.NewReader(input)
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	_ = cmd.Run()
}

// postReport sends the report to the host (no retries: the next
// statusline, some 300 ms on, brings a newer one).
func postReport(ctx context.Context, base string, r host.StatuslineReport) error {
	endpoint, err := relay.Endpoint(base, "x")
	if err != nil {
		return err
	}
	endpoint = strings.TrimSuffix(endpoint, "/hooks/x") + "/statusline"
	body, err := json.Marshal(r)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "notch-web-statusline")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil}}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	return nil
}
