package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recorder is a host that records the hook payloads it is sent.
type recorder struct {
	mu     sync.Mutex
	bodies []string
	paths  []string
}

func (rec *recorder) server(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.bodies = append(rec.bodies, string(b))
		rec.paths = append(rec.paths, r.URL.Path)
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
	out := hooks("install", "claude-code", "--dry-run")
	if !strings.HasPrefix(out, "would change "+path+":\n--- ") || !strings.Contains(out, "\n+    \"SessionStart\": [\n") {
		t.Errorf("dry run:\n%s", out)
	}
	out = hooks("install", "claude-code", "--url", "http://127.0.0.1:7399")
	if !strings.HasPrefix(out, "changed "+path+" (the old file is "+path+".bak-") {
		t.Errorf("install: %s", out)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"url": "http://127.0.0.1:7399/agents-notch/hooks/claude-code"`) {
		t.Errorf("settings:\n%s", b)
	}
	if out = hooks("install", "claude-code", "--url", "http://127.0.0.1:7399"); out != path+": nothing to change\n" {
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
