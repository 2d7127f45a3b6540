package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// startIn runs the host over home until the returned stop is called.
func startIn(t *testing.T, home string, args ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"--addr", "127.0.0.1:0", "--log-level", "error"}, args...), env("DSH_HOME", home), pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL printed: %v (run: %v)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	stop := func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("run did not stop")
		}
	}
	return strings.TrimSuffix(strings.TrimSpace(line), "/agents-notch/"), stop
}

// The history outlives the host: a restarted host's row keeps its events
// (the ▸ panel), `history export` writes them, `history forget` removes
// them; every misuse is one line and a non-zero exit.
func TestHistoryOutlivesARestart(t *testing.T) {
	home := t.TempDir()
	base, stop := startIn(t, home)
	res, err := http.Post(base+"/agents-notch/events", "application/json", strings.NewReader(`{"type":"session.opened","session":"s1","title":"Survivor","cwd":"/src/argon"}
{"type":"turn.started","session":"s1"}
{"type":"tool.started","session":"s1","tool":"Bash"}
{"type":"tool.ended","session":"s1","tool":"Bash","outcome":"ok"}`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("events: %v %v", err, res)
	}
	res.Body.Close()
	stop() // the history's writer drains at shutdown

	out, stderr, err := runOnce(t, home, "history", "export")
	if err != nil || !strings.Contains(out, `"id":"s1"`) || !strings.Contains(out, `"tools":{"Bash":1}`) || stderr != "" {
		t.Fatalf("export: %v %q %q", err, out, stderr)
	}
	if out, _, err := runOnce(t, home, "history", "export", "--format", "csv"); err != nil || !strings.HasPrefix(out, "machine,session,") || !strings.Contains(out, "Bash=1") {
		t.Errorf("export csv: %v %q", err, out)
	}

	base, stop = startIn(t, home)
	res, err = http.Get(base + "/agents-notch/history?session=s1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "tool ended") || !strings.Contains(string(body), "turn started") {
		t.Errorf("the restored row's history: %d %s", res.StatusCode, body)
	}
	stop()

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"history"}, "want export or forget"},
		{[]string{"history", "drop"}, "unknown subcommand"},
		{[]string{"history", "export", "--format", "xml"}, "--format"},
		{[]string{"history", "export", "--since", "yesterday"}, "YYYY-MM-DD"},
		{[]string{"history", "forget"}, "one SESSION or --before"},
		{[]string{"history", "forget", "nope"}, `no session "nope"`},
	} {
		_, stderr, err := runOnce(t, home, c.args...)
		if err == nil || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: %v %q, want %q", c.args, err, stderr, c.want)
		}
	}
	if out, _, err := runOnce(t, home, "history", "forget", "s1"); err != nil || out != "forgot 1 session(s)\n" {
		t.Errorf("forget: %v %q", err, out)
	}
	if out, _, _ := runOnce(t, home, "history", "export"); out != "" {
		t.Errorf("after forget: %q", out)
	}
	if _, stderr, err := runOnce(t, t.TempDir(), "history", "export"); err == nil || !strings.Contains(stderr, "no history at") {
		t.Errorf("no file: %v %q", err, stderr)
	}
}
