package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/proc"
)

// recorder is a host that records the hook payloads it is sent.
type recorder struct {
	mu     sync.Mutex
	bodies []string
	paths  []string
	wheres []string
	procs  []string
}

func (rec *recorder) server(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.bodies = append(rec.bodies, string(b))
		rec.paths = append(rec.paths, r.URL.Path)
		rec.wheres = append(rec.wheres, r.Header.Get(terminal.Header))
		rec.procs = append(rec.procs, r.Header.Get(proc.Header))
		rec.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func env(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

func TestHookRelays(t *testing.T) {
	var rec recorder
	srv := rec.server(t)
	payload := `{"session_id":"s","cwd":"/src/a","hook_event_name":"PreToolUse","tool_name":"Bash"}`
	notify := `{"type":"agent-turn-complete","thread-id":"t"}`
	for _, tc := range []struct {
		args  []string
		env   func(string) string
		stdin string
	}{
		{[]string{"hook", "claude-code", "--url", srv.URL}, env(), payload},
		{[]string{"hook", "--url", srv.URL, "gemini"}, env(), payload},
		{[]string{"hook", "codex"}, env("NOTCH_URL", srv.URL), payload},
		{[]string{"hook", "codex", "--url", srv.URL, notify}, env(), ""},
	} {
		var stdout, stderr bytes.Buffer
		if err := runAgentHooks(context.Background(), tc.args, tc.env, strings.NewReader(tc.stdin), &stdout, &stderr); err != nil {
			t.Errorf("%q: %v", tc.args, err)
		}
		if stdout.Len()+stderr.Len() > 0 {
			t.Errorf("%q wrote %q %q", tc.args, stdout.String(), stderr.String())
		}
	}
	want := []string{"/agents-notch/hooks/claude-code", "/agents-notch/hooks/gemini", "/agents-notch/hooks/codex", "/agents-notch/hooks/codex"}
	if strings.Join(rec.paths, " ") != strings.Join(want, " ") || rec.bodies[0] != payload || rec.bodies[3] != notify {
		t.Errorf("paths %q bodies %q", rec.paths, rec.bodies)
	}
}

// The hook sends where the agent runs, read from its environment, and only
// what is valid: a hostile pane id is dropped, the payload still relayed.
func TestHookSendsWhere(t *testing.T) {
	var rec recorder
	srv := rec.server(t)
	payload := `{"session_id":"s","cwd":"/src/a","hook_event_name":"SessionStart"}`
	for _, e := range []func(string) string{
		env("TMUX", "/tmp/tmux-1000/default,77,0", "TMUX_PANE", "%3", "TERM_PROGRAM", "tmux"),
		env("TMUX", "/tmp/tmux-1000/default,77,0", "TMUX_PANE", "%3;kill-server", "WEZTERM_PANE", "7"),
		env(),
	} {
		runAgentHooks(context.Background(), []string{"hook", "claude-code", "--url", srv.URL}, e, strings.NewReader(payload), io.Discard, io.Discard)
	}
	want := []terminal.Where{
		{TmuxPane: "%3", TmuxSocket: "/tmp/tmux-1000/default", Program: "tmux"},
		{WeztermPane: "7"},
		{},
	}
	if len(rec.wheres) != len(want) {
		t.Fatalf("%d hooks relayed, want %d", len(rec.wheres), len(want))
	}
	for i, w := range want {
		if got := terminal.Parse(rec.wheres[i]); got != w {
			t.Errorf("hook %d sent %q (%+v), want %+v", i, rec.wheres[i], got, w)
		}
	}
	if rec.wheres[2] != "" {
		t.Errorf("a hook outside any known terminal sent %q", rec.wheres[2])
	}
}

// The hook names its agent: the process that ran it, past the shell its
// command line ran in. Here the agent is this test, which runs the real
// command (this test binary, see TestMain) the way an agent does,
// through sh -c.
func TestHookSendsItsAgent(t *testing.T) {
	self, err := proc.Of(os.Getpid())
	if err != nil {
		t.Skipf("no process facts here: %v", err)
	}
	var rec recorder
	srv := rec.server(t)
	exe, _ := os.Executable()
	payload := `{"session_id":"s","cwd":"/src/a","hook_event_name":"SessionStart"}`
	// "; :" keeps the shell from exec'ing the command in its place.
	cmd := exec.Command("sh", "-c", `"$0"; :`, exe)
	cmd.Env = append(os.Environ(), "NOTCH_WEB_RUN_ARGS=hook\x1fclaude-code\x1f--url\x1f"+srv.URL)
	cmd.Stdin = strings.NewReader(payload)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("the hook: %v %q", err, out)
	}
	if len(rec.procs) != 1 {
		t.Fatalf("%d hooks relayed, want 1", len(rec.procs))
	}
	if got := proc.Parse(rec.procs[0]); got != self {
		t.Fatalf("the hook named %q (%+v), want this test's process %+v", rec.procs[0], got, self)
	}
}

// TestHookNeverFails: whatever goes wrong, the hook returns nil (exit 0)
// and writes nothing on stdout; stderr only with --verbose.
func TestHookNeverFails(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	for _, tc := range []struct {
		args    []string
		stdin   string
		verbose string // what stderr says with --verbose
	}{
		{[]string{"hook", "claude-code", "--url", down.URL}, `{"session_id":"s","hook_event_name":"Stop"}`, "the host did not take it"},
		{[]string{"hook", "claude-code", "--url", down.URL}, "not json", "not JSON"},
		{[]string{"hook", "cursor", "--url", down.URL}, "{}", `unknown agent "cursor"`},
		{[]string{"hook", "claude-code", "--url", "localhost:7340"}, "{}", "not a base URL"},
		{[]string{"hook", "claude-code", "--bogus"}, "{}", "flag provided but not defined"},
		{[]string{"hook"}, "{}", `unknown agent ""`},
	} {
		for _, verbose := range []bool{false, true} {
			args := tc.args
			if verbose {
				args = append([]string{"hook", "--verbose"}, tc.args[1:]...)
			}
			var stdout, stderr bytes.Buffer
			if err := runAgentHooks(context.Background(), args, env(), strings.NewReader(tc.stdin), &stdout, &stderr); err != nil {
				t.Errorf("%q: %v", args, err)
			}
			if stdout.Len() > 0 {
				t.Errorf("%q wrote on stdout: %q", args, stdout.String())
			}
			if !verbose && stderr.Len() > 0 {
				t.Errorf("%q wrote on stderr without --verbose: %q", args, stderr.String())
			}
			if verbose && !strings.Contains(stderr.String(), tc.verbose) {
				t.Errorf("%q: stderr %q, want %q", args, stderr.String(), tc.verbose)
			}
		}
	}
}

// TestRunDispatchesHook: run hands "hook" over before its own flags, and a
// hook with a bad agent still returns nil (exit 0) without reading stdin.
func TestRunDispatchesHook(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"hook", "cursor"}, env(), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if stdout.Len()+stderr.Len() > 0 {
		t.Errorf("wrote %q %q", stdout.String(), stderr.String())
	}
}

func TestHooksInstallClaudeCode(t *testing.T) {
	home := t.TempDir()
	getenv := env("HOME", home, "USERPROFILE", home)
	path := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("{\n  \"model\": \"opus\"\n}\n"), 0o644)

	hooks := func(args ...string) string {
		t.Helper()
		var stdout bytes.Buffer
		if err := run(context.Background(), append([]string{"hooks"}, args...), getenv, &stdout, io.Discard); err != nil {
			t.Fatalf("hooks %q: %v", args, err)
		}
		return stdout.String()
	}
	out := hooks("install", "claude-code", "--dry-run", "--exe", "/x/notch-web")
	if !strings.HasPrefix(out, "would change "+path+":\n--- ") || !strings.Contains(out, "\n+    \"SessionStart\": [\n") {
		t.Errorf("dry run:\n%s", out)
	}
	out = hooks("install", "claude-code", "--url", "http://127.0.0.1:7399", "--exe", "/x/notch-web")
	if !strings.HasPrefix(out, "changed "+path+" (the old file is "+path+".bak-") {
		t.Errorf("install: %s", out)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"url": "http://127.0.0.1:7399/agents-notch/hooks/claude-code"`) {
		t.Errorf("settings:\n%s", b)
	}
	if out = hooks("install", "claude-code", "--url", "http://127.0.0.1:7399", "--exe", "/x/notch-web"); !strings.HasPrefix(out, path+": nothing to change\nhost: no notch-web answers at http://127.0.0.1:7399 (") {
		t.Errorf("second install: %q", out)
	}
	out = hooks("status", "claude-code", "--dir", t.TempDir())
	if !strings.Contains(out, "claude-code user: "+path+"\n  installed: SessionStart, UserPromptSubmit") ||
		!strings.Contains(out, "  → http://127.0.0.1:7399/agents-notch/hooks/claude-code") ||
		!strings.Contains(out, "claude-code project: ") || !strings.Contains(out, "  no such file") {
		t.Errorf("status:\n%s", out)
	}
	hooks("uninstall", "claude-code")
	if b, _ := os.ReadFile(path); string(b) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("after uninstall:\n%s", b)
	}
}

func TestHooksInstallCodex(t *testing.T) {
	home := t.TempDir()
	exe := filepath.Join(t.TempDir(), "notch-web")
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"hooks", "install", "codex", "--exe", exe}, env("HOME", home, "USERPROFILE", home), &stdout, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	config, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if !strings.Contains(stdout.String(), "created "+filepath.Join(home, ".codex", "hooks.json")) ||
		!strings.Contains(string(config), `notify = [`) || !strings.Contains(string(config), `"hook", "codex"]`) {
		t.Errorf("output %q, config.toml %q", stdout.String(), config)
	}
}

// hooks install qwen --approvals: its PermissionRequest hook waits on the
// board, --wait long (default its Spec's 10 s); --codex-wait is --wait's
// older name.
func TestHooksInstallApprovals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		file string
		want string
	}{
		{[]string{"qwen", "--approvals"}, ".qwen/settings.json", "--wait 10s"},
		{[]string{"qwen", "--approvals", "--wait", "4s"}, ".qwen/settings.json", "--wait 4s"},
		{[]string{"codex", "--approvals", "--codex-wait", "7s"}, ".codex/hooks.json", "--wait 7s"},
	} {
		home := t.TempDir()
		args := append([]string{"hooks", "install"}, append(tc.args, "--exe", "/x/notch-web")...)
		if err := run(context.Background(), args, env("HOME", home, "USERPROFILE", home), io.Discard, io.Discard); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		b, _ := os.ReadFile(filepath.Join(home, tc.file))
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("%q: %s has no %q:\n%s", tc.args, tc.file, tc.want, b)
		}
	}
}

func TestHooksRefuses(t *testing.T) {
	home := t.TempDir()
	broken := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(broken), 0o755)
	os.WriteFile(broken, []byte(`{"theme": "x",}`), 0o644)
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"hooks"}, "want install, uninstall or status"},
		{[]string{"hooks", "reinstall", "codex"}, `unknown "reinstall"`},
		{[]string{"hooks", "install"}, "name an agent"},
		{[]string{"hooks", "install", "cursor", "--exe", "/x/notch-web"}, `unknown agent "cursor"`},
		{[]string{"hooks", "install", "codex", "--scope", "project", "--exe", "/x/notch-web"}, `codex has no "project" scope`},
		{[]string{"hooks", "install", "claude-code", "--url", "localhost"}, "not a base URL"},
		{[]string{"hooks", "install", "gemini", "--exe", "/x/notch-web"}, "not valid JSON: line 1, column 15"},
		{[]string{"hooks", "install", "claude-code", "extra"}, `unexpected arguments ["extra"]`},
		{[]string{"hooks", "install", "gemini", "--approvals", "--exe", "/x/notch-web"}, "--approvals is for codex and qwen"},
		{[]string{"hooks", "install", "copilot", "--otel", "--url", "http://127.0.0.1:7480", "--exe", "/x/notch-web"}, "reads its OpenTelemetry only from the environment; start it with OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:7480/agents-notch/otlp"},
		{[]string{"hooks", "install", "qwen", "--approvals", "--wait", "11m", "--exe", "/x/notch-web"}, "--wait 11m0s: want a duration above 0 and at most 10m0s"},
	} {
		err := run(context.Background(), tc.args, env("HOME", home, "USERPROFILE", home), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.err)
		}
	}
	if b, _ := os.ReadFile(broken); string(b) != `{"theme": "x",}` {
		t.Error("the broken file was touched")
	}
}

// TestHooksFailuresSpoken: every failure of "notch-web hooks" prints one
// line on stderr that names the file (quoted) or the argument at fault and
// says what to do, and is an error (exit 1); nothing is written.
func TestHooksFailuresSpoken(t *testing.T) {
	home := t.TempDir()
	getenv := env("HOME", home, "USERPROFILE", home)
	gem := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(gem), 0o755)
	os.WriteFile(gem, []byte(`{"theme": "x",}`), 0o644)
	claudeDir := filepath.Join(home, ".claude")
	os.MkdirAll(filepath.Join(claudeDir, "settings.json"), 0o755) // a directory where the file goes
	proj := t.TempDir()
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte("{\n  \"model\": \"opus\"\n}\n"), 0o644)
	roProj := t.TempDir()
	os.MkdirAll(filepath.Join(roProj, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(roProj, ".gemini", "settings.json"), []byte("{}\n"), 0o644)
	os.Chmod(filepath.Join(roProj, ".gemini"), 0o555)
	t.Cleanup(func() { os.Chmod(filepath.Join(roProj, ".gemini"), 0o755) })
	exe := "/x/notch-web"
	for _, tc := range []struct {
		args []string
		want []string // what the one line must say
	}{
		{[]string{"hooks"}, []string{"install, uninstall or status"}},
		{[]string{"hooks", "reinstall", "codex"}, []string{`"reinstall"`, "notch-web hooks -h"}},
		{[]string{"hooks", "install"}, []string{"name an agent"}},
		{[]string{"hooks", "install", "cursor", "--exe", exe}, []string{`"cursor"`, "claude-code, codex, gemini"}},
		{[]string{"hooks", "install", "claude-code", "--bogus"}, []string{"-bogus", "notch-web hooks -h"}},
		{[]string{"hooks", "install", "gemini", "--exe", exe}, []string{strconv.Quote(gem), "line 1, column 15", "fix"}},
		{[]string{"hooks", "install", "claude-code", "--exe", exe}, []string{strconv.Quote(filepath.Join(claudeDir, "settings.json")), "not a regular file", "move it"}},
		{[]string{"hooks", "uninstall", "claude-code"}, []string{strconv.Quote(filepath.Join(claudeDir, "settings.json")), "not a regular file"}},
		{[]string{"hooks", "install", "claude-code", "--url", "localhost"}, []string{"--url", "not a base URL"}},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tc.args, getenv, &stdout, &stderr)
		if err == nil {
			t.Errorf("%q: no error (exit 0)", tc.args)
			continue
		}
		line := stderr.String()
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") || !strings.HasPrefix(line, "notch-web hooks") {
			t.Errorf("%q: stderr is not one line: %q", tc.args, line)
		}
		for _, w := range tc.want {
			if !strings.Contains(line, w) {
				t.Errorf("%q: %q does not say %q", tc.args, line, w)
			}
		}
	}
	if os.Getuid() != 0 {
		var stderr bytes.Buffer
		err := run(context.Background(), []string{"hooks", "install", "gemini", "--scope", "project", "--dir", roProj, "--exe", exe}, getenv, io.Discard, &stderr)
		if err == nil || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "permission denied") {
			t.Errorf("read-only folder: %v, stderr %q", err, stderr.String())
		}
	}
	if b, _ := os.ReadFile(gem); string(b) != `{"theme": "x",}` {
		t.Error("the broken file was touched")
	}
}

// TestHooksQuotePaths: a path with terminal controls (ESC, BEL, bidi) is
// printed quoted, never raw, by install, status and the errors.
func TestHooksQuotePaths(t *testing.T) {
	home := filepath.Join(t.TempDir(), "me\x1b]0;pwned\x07\u202egnp.exe\u061c\u200b")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	getenv := env("HOME", home, "USERPROFILE", home)
	var out bytes.Buffer
	for _, args := range [][]string{
		{"hooks", "install", "claude-code", "--dry-run", "--exe", "/x/notch-web"},
		{"hooks", "install", "claude-code", "--exe", "/x/notch-web"},
		{"hooks", "install", "claude-code", "--exe", "/x/notch-web"},
		{"hooks", "status", "claude-code", "--dir", home},
		{"hooks", "uninstall", "claude-code"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, getenv, &stdout, &stderr); err != nil {
			t.Fatalf("%q: %v %s", args, err, stderr.String())
		}
		out.Write(stdout.Bytes())
		out.Write(stderr.Bytes())
	}
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte("{,}"), 0o644)
	var stderr bytes.Buffer
	if run(context.Background(), []string{"hooks", "install", "claude-code", "--exe", "/x/notch-web"}, getenv, io.Discard, &stderr) == nil {
		t.Error("a broken file was not refused")
	}
	out.Write(stderr.Bytes())
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u061c", "\u200b"} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("%q printed raw in:\n%s", bad, out.String())
		}
	}
	if !strings.Contains(out.String(), `\x1b]0;pwned\a\u202egnp.exe\u061c\u200b`) {
		t.Errorf("the path is not shown quoted:\n%s", out.String())
	}
}

// TestHooksStatusChecksTheHost: status says, for the URL the hooks point
// to, whether a notch-web answers there (GET /healthz), and says so plainly
// when none does or when something else answers.
func TestHooksStatusChecksTheHost(t *testing.T) {
	notch := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"ok":true,"version":"v9.9.9","streams":0}`))
	}))
	defer notch.Close()
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()

	for _, tc := range []struct {
		name, url, want string
	}{
		{"a notch-web answers", notch.URL, "\nclaude-code host: notch-web v9.9.9 answers at " + notch.URL + "\n"},
		{"nothing listens", goneURL, "\nclaude-code host: no notch-web answers at " + goneURL + " ("},
		{"something else answers", other.URL, "\nclaude-code host: no notch-web answers at " + other.URL + " (something answers (404 Not Found), but not notch-web's /healthz): its hooks reach nothing. Start notch-web there, or install the hooks again with --url pointing at the one you run\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			getenv := env("HOME", home, "USERPROFILE", home)
			var out bytes.Buffer
			if err := run(context.Background(), []string{"hooks", "install", "claude-code", "--url", tc.url, "--exe", "/x/notch-web"}, getenv, io.Discard, io.Discard); err != nil {
				t.Fatal(err)
			}
			if err := run(context.Background(), []string{"hooks", "status", "claude-code", "--dir", home}, getenv, &out, io.Discard); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tc.want) || strings.Count(out.String(), "host: ") != 1 {
				t.Errorf("status:\n%s\nwant one host line with %q", out.String(), tc.want)
			}
			// Its own line, last, after every file of the agent: not
			// indented under one of them.
			if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); !strings.HasPrefix(lines[len(lines)-1], "claude-code host: ") {
				t.Errorf("status: the host line is not the agent's last, on its own:\n%s", out.String())
			}
		})
	}
}

// TestHooksInstallSaysWhenNoHostAnswers: an install whose URL no notch-web
// answers at says so in one line on stdout, after what it wrote, and still
// installs (exit 0); with a notch-web there, or on a dry run, it says
// nothing of it.
func TestHooksInstallSaysWhenNoHostAnswers(t *testing.T) {
	notch := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ok":true,"version":"v9.9.9"}`))
	}))
	defer notch.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()
	for _, agent := range []string{"claude-code", "codex", "gemini"} {
		t.Run(agent, func(t *testing.T) {
			home := t.TempDir()
			getenv := env("HOME", home, "USERPROFILE", home)
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"hooks", "install", agent, "--url", goneURL, "--exe", "/x/notch-web"}, getenv, &stdout, &stderr)
			if err != nil || stderr.Len() > 0 {
				t.Fatalf("install: %v, stderr %q", err, stderr.String())
			}
			want := "host: no notch-web answers at " + goneURL + " (connection refused): the hooks are installed, and reach nothing until notch-web runs there (or install again with --url pointing at the one you run)\n"
			if !strings.HasPrefix(stdout.String(), "created ") || !strings.HasSuffix(stdout.String(), want) || strings.Count(stdout.String(), "host: ") != 1 {
				t.Errorf("stdout:\n%s\nwant it to end with %q", stdout.String(), want)
			}
			st, _ := runHooksStatus(t, getenv, agent)
			if !strings.Contains(st, "installed: ") {
				t.Errorf("not installed after all:\n%s", st)
			}
			for _, args := range [][]string{
				{"hooks", "install", agent, "--url", notch.URL, "--exe", "/x/notch-web"},
				{"hooks", "install", agent, "--url", goneURL, "--exe", "/x/notch-web", "--dry-run"},
			} {
				stdout.Reset()
				if err := run(context.Background(), args, getenv, &stdout, io.Discard); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(stdout.String(), "host: ") {
					t.Errorf("%q says %q", args, stdout.String())
				}
			}
		})
	}
}

func runHooksStatus(t *testing.T, getenv func(string) string, agent string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), []string{"hooks", "status", agent, "--dir", t.TempDir()}, getenv, &out, io.Discard)
	return out.String(), err
}

// TestHooksWithoutHome: with HOME unset, one line with one prefix.
func TestHooksWithoutHome(t *testing.T) {
	for _, verb := range []string{"install", "uninstall"} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"hooks", verb, "claude-code", "--exe", "/x/notch-web"}, env(), &stdout, &stderr)
		want := "notch-web hooks " + verb + ": no home directory (set HOME)\n"
		if err == nil || stderr.String() != want || stdout.Len() > 0 {
			t.Errorf("hooks %s without HOME: %v, stderr %q, stdout %q; want %q", verb, err, stderr.String(), stdout.String(), want)
		}
	}
}

// TestHookOrigin: --origin relays nothing and prints the host's URL and
// the headers a hook would carry (OpenCode's plugin sends them itself); a
// URL that is not a host's prints nothing.
func TestHookOrigin(t *testing.T) {
	var rec recorder
	srv := rec.server(t)
	var stdout, stderr bytes.Buffer
	e := env("NOTCH_URL", srv.URL+"/", "TMUX", "/tmp/tmux-1000/default,77,0", "TMUX_PANE", "%3")
	if err := runAgentHooks(context.Background(), []string{"hook", "opencode", "--origin"}, e, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var got hookOrigin
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || stderr.Len() > 0 {
		t.Fatalf("stdout %q stderr %q: %v", stdout.String(), stderr.String(), err)
	}
	if got.URL != srv.URL || terminal.Parse(got.Headers[terminal.Header]).TmuxPane != "%3" || len(rec.paths) != 0 {
		t.Errorf("origin %+v; relayed %q", got, rec.paths)
	}
	// This test's parent (go test) is a process: it is named.
	if proc.Parse(got.Headers[proc.Header]).IsZero() && runtime.GOOS == "linux" {
		t.Errorf("no process in %+v", got.Headers)
	}
	stdout.Reset()
	runAgentHooks(context.Background(), []string{"hook", "opencode", "--origin", "--url", "ftp://x"}, env(), strings.NewReader(""), &stdout, &stderr)
	if stdout.Len() > 0 {
		t.Errorf("a bad URL printed %q", stdout.String())
	}
}
