package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/internal/proc/proctest"
)

// fakeTmux puts a tmux on PATH that records every argv it is run with
// (each argument ended by a NUL, each run by a newline) and answers
// list-panes with panes (one id a line), each with the pid of an agent
// that leads a terminal of its own (proctest.TTYAgent: the host checks that the
// pane's foreground is the row's agent), and a screen read with Claude
// Code's empty input; it returns the socket a hook may name and a reader
// of the recorded runs. The agent's Notch-Proc is in the file "proc"
// beside the socket (steerSession sends it).
func fakeTmux(t *testing.T, panes string) (sock string, runs func() [][]string) {
	t.Helper()
	dir := t.TempDir()
	sock = filepath.Join(dir, "tmux-sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no Unix socket here: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	if !terminal.ValidSocket(sock) {
		t.Skipf("the temporary folder's path %q is not one the hook would keep", sock)
	}
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	log := filepath.Join(dir, "argv")
	agent := proctest.TTYAgent(t)
	var lines strings.Builder
	for _, p := range strings.Fields(panes) {
		fmt.Fprintf(&lines, "%s %d\n", p, agent.PID)
	}
	os.WriteFile(filepath.Join(dir, "panes"), []byte(lines.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "proc"), []byte(agent.Encode()), 0o644)
	// printf '%s\0' "$@" prints each argument as the shell got it: the
	// script quotes every expansion, so what is recorded is the argv.
	script := "#!/bin/sh\nprintf '%s\\0' \"$@\" >> '" + log + "'\necho >> '" + log + "'\n" +
		"if [ \"$3\" = list-panes ]; then cat '" + filepath.Join(dir, "panes") + "'; fi\n" +
		"if [ \"$8\" = display-message ]; then printf '%s\\n────\\n❯ \\n────\\n' \"${10}\"; fi\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "tmux"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return sock, func() [][]string {
		b, _ := os.ReadFile(log)
		var out [][]string
		for _, run := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\x00\n") {
			if run != "" {
				out = append(out, strings.Split(strings.TrimSuffix(run, "\x00"), "\x00"))
			}
		}
		return out
	}
}

// syncBuffer is a log sink tests read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// steerSession starts a Claude Code session in pane %3 of sock and ends
// its turn (done), as its hooks would.
func steerSession(t *testing.T, e *testEnv, id, sock string) {
	t.Helper()
	where := terminal.Where{TmuxPane: "%3", TmuxSocket: sock}.Encode()
	agent, _ := os.ReadFile(filepath.Join(filepath.Dir(sock), "proc"))
	if code, _ := postRaw(t, e, "/agents-notch/hooks/claude-code", claude(id, "SessionStart", `,"source":"startup"`),
		map[string]string{terminal.Header: where, proc.Header: string(agent)}); code != 200 {
		t.Fatalf("SessionStart: %d", code)
	}
	postRaw(t, e, "/agents-notch/hooks/claude-code", claude(id, "UserPromptSubmit", `,"prompt":"hi"`), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", claude(id, "Stop", ""), nil)
}

func replyBody(id, text string) string {
	b, _ := json.Marshal(map[string]string{"sessionId": id, "text": text})
	return string(b)
}

// A reply is typed into the session's own pane with tmux's literal flag
// and "--", the whole text one argument of a fixed argv, then Enter on its
// own: whatever bytes the text holds — a shell's $( ) and backticks,
// quotes, a leading dash, tmux's own key names, a command separator,
// lines — none reaches a shell, none is read as a key or an option (the
// fake tmux records exactly the argv it was given). One steer.v1 record
// per reply: its session and length, never its text.
func TestReplyTypesTheTextLiterally(t *testing.T) {
	sock, runs := fakeTmux(t, "%1\n%3\n")
	logs := &syncBuffer{}
	e := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}, log: logs})
	steerSession(t, e, "s-reply", sock)
	dir := t.TempDir()
	pwned := filepath.Join(dir, "pwned")
	for _, text := range []string{
		"Now run the tests",
		"$(touch " + pwned + ") `touch " + pwned + "` ; touch " + pwned + " && echo x | sh",
		`-t %9 send-keys C-c Enter Escape "q" 'q' \; \\ \n`,
		"-l",
		"line one\nline two\n\nline four",
		"run the tests;",
		"héllo ✓ 漢字 🙂 <b>markup</b> &amp;",
		strings.Repeat("x", terminal.MaxReply),
	} {
		before := len(runs())
		code, body := postRaw(t, e, "/agents-notch/reply", replyBody("s-reply", text), nil)
		if code != 200 {
			t.Fatalf("reply %.40q: %d %s", text, code, body)
		}
		got := runs()[before:]
		if len(got) > 0 && len(got[0]) > 9 {
			got[0][9] = "NONCE"
		}
		typed := text
		if strings.HasSuffix(text, ";") { // tmux's separator, escaped
			typed = strings.TrimSuffix(text, ";") + `\;`
		}
		want := [][]string{
			{"-S", sock, "list-panes", "-a", "-F", "#{pane_id} #{pane_pid}", ";", "display-message", "-p", "NONCE", ";", "capture-pane", "-p", "-e", "-t", "%3"},
			{"-S", sock, "send-keys", "-t", "%3", "-l", "--", typed},
			{"-S", sock, "send-keys", "-t", "%3", "Enter"},
		}
		if len(got) != len(want) {
			t.Fatalf("reply %.40q ran tmux %d times: %q", text, len(got), got)
		}
		for i := range want {
			if strings.Join(got[i], "\x00") != strings.Join(want[i], "\x00") {
				t.Errorf("reply %.40q: run %d was %q, want %q", text, i, got[i], want[i])
			}
		}
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("a reply's text reached a shell")
	}
	recs := strings.Count(logs.String(), `"log_type":"agents-notch.steer.v1"`)
	if recs != 8 || !strings.Contains(logs.String(), `"session":"s-reply"`) || !strings.Contains(logs.String(), `"bytes":8192`) {
		t.Fatalf("%d steer records, want 8:\n%s", recs, logs)
	}
	if strings.Contains(logs.String(), "Now run the tests") || strings.Contains(logs.String(), "line one") {
		t.Fatal("the log carries a reply's text")
	}
}

// What a reply may not hold is refused with 400 before tmux runs: every
// control character but a newline (ESC, which could drive the terminal;
// tab; NUL; DEL; C1; ^C), the characters the board hides (bidi overrides,
// zero-width), invalid UTF-8, more than 8 KiB, nothing at all.
func TestReplyRefusesControlCharacters(t *testing.T) {
	sock, runs := fakeTmux(t, "%3\n")
	e := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}})
	steerSession(t, e, "s-bad", sock)
	before := len(runs())
	for _, text := range []string{
		"\x1b[31mred", "a\tb", "a\x00b", "a\x7fb", "a\u0085b", "\x03", "a\u202eb", "a\u200bb", "",
		" \n ", strings.Repeat("x", terminal.MaxReply+1),
	} {
		if code, body := postRaw(t, e, "/agents-notch/reply", replyBody("s-bad", text), nil); code != 400 {
			t.Errorf("reply %.20q: %d %s, want 400", text, code, body)
		}
	}
	if got := runs()[before:]; len(got) != 0 {
		t.Fatalf("tmux ran for a refused reply: %q", got)
	}
}

// Stop presses Escape in a working row's pane; a reply to a working row
// and a stop of a done one are 409; a pane that is gone is 410; a session
// with no pane known is 404, one in another terminal 409; --steer off is
// 403 and types nothing.
func TestStopAndRefusals(t *testing.T) {
	sock, runs := fakeTmux(t, "%3\n")
	e := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}})
	steerSession(t, e, "s-stop", sock)
	if code, _ := postRaw(t, e, "/agents-notch/stop", `{"sessionId":"s-stop"}`, nil); code != 409 {
		t.Errorf("stop of a done row: %d, want 409", code)
	}
	postRaw(t, e, "/agents-notch/hooks/claude-code", claude("s-stop", "UserPromptSubmit", `,"prompt":"go"`), nil)
	if code, _ := postRaw(t, e, "/agents-notch/reply", replyBody("s-stop", "more"), nil); code != 409 {
		t.Errorf("reply to a working row: %d, want 409", code)
	}
	before := len(runs())
	if code, body := postRaw(t, e, "/agents-notch/stop", `{"sessionId":"s-stop"}`, nil); code != 200 {
		t.Fatalf("stop: %d %s", code, body)
	}
	got := runs()[before:]
	if len(got) != 2 || strings.Join(got[1], " ") != "-S "+sock+" send-keys -t %3 Escape" {
		t.Fatalf("stop ran %q", got)
	}

	if code, _ := postRaw(t, e, "/agents-notch/reply", replyBody("s-nobody", "hi"), nil); code != 404 {
		t.Errorf("a session with no pane: %d, want 404", code)
	}
	wez := terminal.Where{WeztermPane: "7"}.Encode()
	postRaw(t, e, "/agents-notch/hooks/claude-code", claude("s-wez", "SessionStart", `,"source":"startup"`), map[string]string{terminal.Header: wez})
	if code, _ := postRaw(t, e, "/agents-notch/reply", replyBody("s-wez", "hi"), nil); code != 409 {
		t.Errorf("a session in WezTerm: %d, want 409", code)
	}

	gone, _ := fakeTmux(t, "%1\n")
	steerSession(t, e, "s-gone", gone)
	if code, _ := postRaw(t, e, "/agents-notch/reply", replyBody("s-gone", "hi"), nil); code != 410 {
		t.Errorf("a pane that is gone: %d, want 410", code)
	}

	off := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}, steerOff: true})
	steerSession(t, off, "s-off", sock)
	before = len(runs())
	if code, _ := postRaw(t, off, "/agents-notch/reply", replyBody("s-off", "hi"), nil); code != 403 {
		t.Errorf("--steer off: %d, want 403", code)
	}
	if got := runs()[before:]; len(got) != 0 {
		t.Fatalf("--steer off typed: %q", got)
	}
}

// FuzzParseReplyRequest: a reply it takes is for a valid session and is
// text CheckReply takes.
func FuzzParseReplyRequest(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","text":"Run the tests"}`))       // a reply
	f.Add([]byte(`{"sessionId":"s","text":"a\r\nb"}`))              // lines
	f.Add([]byte(`{"sessionId":"s","text":"\u001b]52;c;x\u0007"}`)) // an escape sequence
	f.Add([]byte(`{"sessionId":"s","text":"x","extra":1}`))         // an unknown field
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := parseReplyRequest(body)
		if err != nil {
			return
		}
		if got, err := terminal.CheckReply(r.Text); err != nil || got != r.Text || r.Stop {
			t.Fatalf("let through %+v", r)
		}
	})
}

// TestStopPressesTheAgentsKey: Stop presses the agent's own interrupt key
// (its Spec's StopKey): Ctrl-C for GitHub Copilot CLI, whose Escape does
// not stop a turn while the model streams.
func TestStopPressesTheAgentsKey(t *testing.T) {
	sock, runs := fakeTmux(t, "%3\n")
	e := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}})
	where := terminal.Where{TmuxPane: "%3", TmuxSocket: sock}.Encode()
	hook := func(body string, hdr map[string]string) {
		t.Helper()
		if code, out := postRaw(t, e, "/agents-notch/hooks/copilot", `{"session_id":"c-stop","cwd":"/src/x",`+body+`}`, hdr); code != 200 {
			t.Fatalf("%s: %d %s", body, code, out)
		}
	}
	agent, _ := os.ReadFile(filepath.Join(filepath.Dir(sock), "proc"))
	hook(`"hook_event_name":"SessionStart","source":"new"`, map[string]string{terminal.Header: where, proc.Header: string(agent)})
	hook(`"hook_event_name":"UserPromptSubmit","prompt":"go"`, nil)
	before := len(runs())
	if code, body := postRaw(t, e, "/agents-notch/stop", `{"sessionId":"c-stop"}`, nil); code != 200 {
		t.Fatalf("stop: %d %s", code, body)
	}
	got := runs()[before:]
	if len(got) != 2 || strings.Join(got[1], " ") != "-S "+sock+" send-keys -t %3 C-c" {
		t.Fatalf("stop ran %q", got)
	}
}
