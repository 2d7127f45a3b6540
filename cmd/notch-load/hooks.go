//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// runHooks is `notch-load hooks`: how long an agent waits on its hooks.
// Claude Code runs hooks synchronously around every tool call, so:
//   - the reply time of POST /agents-notch/hooks/claude-code with many
//     sessions firing at once (each with a real transcript for the host to
//     read its tokens from: that read must not be on the reply path);
//   - the wall time of `notch-web hook claude-code` (process start, POST,
//     exit), the command-hook way, with the host up and with it down.
func runHooks(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("notch-load hooks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := fs.String("bin", "bin/notch-web", "the notch-web binary")
	sessions := fs.Int("sessions", 20, "sessions firing hooks at once")
	rate := fs.Int("rate", 50, "hooks per second per session")
	dur := fs.Duration("duration", 10*time.Second, "how long they fire")
	procs := fs.Int("procs", 200, "runs of `notch-web hook claude-code` with the host up (and a quarter as many down)")
	var also listFlag
	fs.Var(&also, "also", "another notch-web binary whose command hook runs beside -bin's, one run of each in turn, as NAME=PATH (repeatable): a before beside an after")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	bins := []hookBin{{"", *bin}}
	for _, a := range also {
		name, path, ok := strings.Cut(a, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("-also %q: want NAME=PATH", a)
		}
		bins = append(bins, hookBin{name, path})
	}
	home, err := os.MkdirTemp("", "notch-load-hooks-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	srv, err := startServer(ctx, *bin, "--dsh-home", home)
	if err != nil {
		return err
	}
	defer srv.stop()

	fmt.Fprintf(stdout, "## Hooks: what an agent waits for\n\n")
	endpoint, err := hookEndpoint(ctx, srv.url, home, *sessions, *rate, *dur)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "| measure | n | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|\n")
	row := func(name string, s stats) {
		fmt.Fprintf(stdout, "| %s | %d | %.2f | %.2f | %.2f |\n", name, s.N, s.P50, s.P99, s.Max)
	}
	row(fmt.Sprintf("POST /agents-notch/hooks/claude-code, %d sessions × %d hooks/s (reply)", *sessions, *rate), endpoint)

	payload := []byte(claudePayload("proc-session", filepath.Join(home, "proc.jsonl"), "PreToolUse", 1))
	up, err := hookProcess(ctx, bins, srv.url, payload, *procs)
	if err != nil {
		return err
	}
	down, err := hookProcess(ctx, bins, closedURL(), payload, max(1, *procs/4))
	if err != nil {
		return err
	}
	for i, b := range bins {
		row(b.label("`notch-web hook claude-code`, host up (start + POST + exit)"), up[i])
	}
	for i, b := range bins {
		row(b.label("`notch-web hook claude-code`, host down"), down[i])
	}
	fmt.Fprintf(stdout, "\nTargets (issue 13): reply p99 ≤ 2 ms: %s; command hook p99 ≤ 30 ms: %s; ≤ 1 s with the host down: %s.\n",
		verdict(endpoint.P99 <= 2), verdict(up[0].P99 <= 30), verdict(down[0].Max <= 1000))
	if len(bins) > 1 {
		fmt.Fprintf(stdout, "The targets are -bin's (%s); the runs of every binary alternate, one of each in turn.\n", *bin)
	}
	return nil
}

// verdict is a target's result in the reports.
func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// claudePayload is one Claude Code hook, shaped as Claude Code sends it.
func claudePayload(session, transcript, event string, n int) string {
	base := `{"session_id":"` + session + `","transcript_path":` + strconv.Quote(transcript) +
		`,"cwd":"/home/me/src/project-` + session + `","permission_mode":"default","hook_event_name":"` + event + `"`
	tool := `,"tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run the tests"},"tool_use_id":"toolu_` + strconv.Itoa(n) + `"`
	switch event {
	case "UserPromptSubmit":
		return base + `,"prompt":"Make the tests pass"}`
	case "PreToolUse":
		return base + tool + `}`
	case "PostToolUse":
		return base + tool + `,"tool_response":{"stdout":"ok  \tgithub.com/x/y\t0.012s","stderr":"","interrupted":false}}`
	}
	return base + `}`
}

// transcript writes a Claude Code transcript of about 256 KiB ending in an
// assistant message with usage, so every token read is a real tail read.
func transcript(path string) error {
	var b bytes.Buffer
	for i := 0; b.Len() < 256<<10; i++ {
		fmt.Fprintf(&b, `{"type":"assistant","requestId":"req_%d","message":{"role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":1000,"cache_read_input_tokens":200000,"output_tokens":300}}}`+"\n",
			i, strings.Repeat("lorem ipsum ", 40), 1000+i)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// hookEndpoint fires hooks from sessions goroutines, each at rate per
// second for dur, cycling a turn (prompt, tool calls, stop), and returns
// the reply times.
func hookEndpoint(ctx context.Context, base, home string, sessions, rate int, dur time.Duration) (stats, error) {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: sessions}}
	cycle := []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse", "Stop"}
	var (
		mu   sync.Mutex
		ms   []float64
		errs int
		wg   sync.WaitGroup
	)
	for s := range sessions {
		tr := filepath.Join(home, fmt.Sprintf("s%d.jsonl", s))
		if err := transcript(tr); err != nil {
			return stats{}, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("load-session-%02d", s)
			tick := time.NewTicker(time.Second / time.Duration(rate))
			defer tick.Stop()
			end := time.Now().Add(dur)
			local := make([]float64, 0, int(dur.Seconds())*rate)
			for n := 0; time.Now().Before(end); n++ {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				body := claudePayload(id, tr, cycle[n%len(cycle)], n)
				start := time.Now()
				res, err := client.Post(base+"/agents-notch/hooks/claude-code", "application/json", strings.NewReader(body))
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				el := float64(time.Since(start).Microseconds()) / 1000
				if err != nil || res.StatusCode != 200 {
					mu.Lock()
					errs++
					mu.Unlock()
					continue
				}
				local = append(local, el)
			}
			mu.Lock()
			ms = append(ms, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if errs > 0 {
		return stats{}, fmt.Errorf("%d hooks failed", errs)
	}
	return summarize(ms), nil
}

// hookBin is a notch-web binary whose command hook is timed; name is ""
// for -bin's, else its -also name.
type hookBin struct{ name, path string }

// label is a report row's measure, with the binary's name when it has one.
func (b hookBin) label(measure string) string {
	if b.name == "" {
		return measure
	}
	return measure + ": " + b.name
}

// hookProcess runs `notch-web hook claude-code --url base` n times for each
// of bins, one at a time and one binary after the other (so a slow spell of
// the machine falls on each alike), with payload on stdin, and returns each
// binary's wall times. It fails if one writes to stdout or exits non-zero:
// an agent would read the one and log the other.
func hookProcess(ctx context.Context, bins []hookBin, base string, payload []byte, n int) ([]stats, error) {
	ms := make([][]float64, len(bins))
	for range n {
		for i, b := range bins {
			cmd := exec.CommandContext(ctx, b.path, "hook", "claude-code", "--url", base)
			cmd.Stdin = bytes.NewReader(payload)
			var out bytes.Buffer
			cmd.Stdout = &out
			start := time.Now()
			err := cmd.Run()
			el := float64(time.Since(start).Microseconds()) / 1000
			if err != nil {
				return nil, fmt.Errorf("%s hook: %w", b.path, err)
			}
			if out.Len() > 0 {
				return nil, fmt.Errorf("%s hook wrote %q to stdout", b.path, out.String())
			}
			ms[i] = append(ms[i], el)
		}
	}
	res := make([]stats, len(bins))
	for i := range bins {
		res[i] = summarize(ms[i])
	}
	return res, nil
}

// closedURL is a loopback address nothing listens on: a host that is down.
func closedURL() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "http://127.0.0.1:9"
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}
