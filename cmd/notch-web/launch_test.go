package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLaunchCommand: notch-web launch edits launch.json from the shell —
// mode 0600, each refusal one line and an error — and shows it.
func TestLaunchCommand(t *testing.T) {
	dsh, src := t.TempDir(), t.TempDir()
	steps := []struct {
		args    []string
		out     string // a part of stdout; "" for a refusal
		refusal string // a part of the one line on stderr
	}{
		{nil, "launching: off", ""},
		{[]string{"allow-folder", src}, "  " + src + "\n", ""},
		{[]string{"allow-agent", "claude-code"}, "launching: on", ""},
		{[]string{"allow-agent", "codex", "/opt/codex", "-m", "o3"}, "codex: /opt/codex -m o3 (resumes by id)", ""},
		{[]string{"allow-agent", "bash"}, "", `"bash" is not an agent`},
		{[]string{"allow-folder", filepath.Join(src, "missing")}, "", "is not a folder"},
		{[]string{"worktrees", "/elsewhere"}, "", "not inside a root"},
		{[]string{"worktrees", filepath.Join(src, ".wt")}, "worktrees: " + filepath.Join(src, ".wt"), ""},
		{[]string{"max-sessions", "0"}, "", "1 or more"},
		{[]string{"max-sessions", "2"}, "max sessions at once: 2", ""},
		{[]string{"starts-per-minute", "99"}, "", "startsPerMinute 99"},
		{[]string{"deny-agent", "codex"}, "agents:\n  claude-code:", ""},
		{[]string{"frobnicate"}, "", `no verb "frobnicate"`},
	}
	for _, st := range steps {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"launch", "--dsh-home", dsh}, st.args...), env("HOME", t.TempDir()), &out, &errb)
		if st.refusal != "" {
			if err == nil || !strings.Contains(errb.String(), st.refusal) || strings.Count(errb.String(), "\n") != 1 {
				t.Errorf("%v: err %v, stderr %q; want one line saying %q", st.args, err, errb.String(), st.refusal)
			}
			continue
		}
		if err != nil || !strings.Contains(out.String(), st.out) {
			t.Errorf("%v: err %v, stdout %q; want %q", st.args, err, out.String(), st.out)
		}
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(filepath.Join(dsh, "launch.json"))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("launch.json: %v, mode %v; want 0600", err, fi.Mode())
		}
	}
}
