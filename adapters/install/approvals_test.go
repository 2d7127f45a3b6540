package install

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/claudecode"
	"github.com/notch-web/notch-web/adapters/codex"
)

// hooksOf reads the settings file's notch-web hook per event.
func hooksOf(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	var f struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(read(t, path)), &f); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for ev, groups := range f.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				out[ev] = h
			}
		}
	}
	return out
}

// Claude Code's PermissionRequest hook waits a few seconds longer than the
// host holds it (--approval-hold), so the board can answer before Claude
// Code gives up on the hook; every other hook keeps its short timeout. A
// second install with the same hold changes nothing; another hold updates
// the one hook.
func TestClaudePermissionRequestOutlastsTheHold(t *testing.T) {
	o := opts(t, ClaudeCode)
	path := filepath.Join(o.Home, ".claude", "settings.json")
	mustInstall(t, o)
	hs := hooksOf(t, path)
	if got := hs[claudecode.PermissionRequest]["timeout"]; got != float64(30) {
		t.Fatalf("PermissionRequest timeout %v, want 30 (the 25 s hold + 5)", got)
	}
	if got := hs[claudecode.PreToolUse]["timeout"]; got != float64(ClaudeHTTPTimeout) {
		t.Fatalf("PreToolUse timeout %v", got)
	}
	if res := mustInstall(t, o); res.Changes[0].Changed {
		t.Fatal("a second install changed the file")
	}
	o.ApprovalHold = 90 * time.Second
	if res := mustInstall(t, o); !res.Changes[0].Changed {
		t.Fatal("another hold changed nothing")
	}
	if got := hooksOf(t, path)[claudecode.PermissionRequest]["timeout"]; got != float64(95) {
		t.Fatalf("timeout %v, want 95", got)
	}
}

// Codex stays observe-only unless installed with --approvals: then its
// PermissionRequest hook runs "notch-web hook codex --wait <hold>", with a
// timeout above it.
func TestCodexApprovalsOptIn(t *testing.T) {
	o := opts(t, Codex)
	mustInstall(t, o)
	path := filepath.Join(o.Home, ".codex", "hooks.json")
	if c := hooksOf(t, path)[codex.PermissionRequest]["command"].(string); !strings.Contains(c, "hook codex") || strings.Contains(c, "--wait") {
		t.Fatalf("default command %q", c)
	}
	o.Wait = DefaultCodexWait
	mustInstall(t, o)
	h := hooksOf(t, path)[codex.PermissionRequest]
	if c := h["command"].(string); !strings.Contains(c, "hook codex") || !strings.Contains(c, "--wait 10s") || h["timeout"] != float64(15) {
		t.Fatalf("--approvals hook %v", h)
	}
	if c := hooksOf(t, path)[codex.PreToolUse]["command"].(string); strings.Contains(c, "--wait") {
		t.Fatalf("PreToolUse waits too: %q", c)
	}
}

// TestCodexWaitIsOurs: the --wait hook install writes is recognised as
// notch-web's: a second install changes nothing, uninstall takes it out.
func TestCodexWaitIsOurs(t *testing.T) {
	skipOnWindows(t)
	o := opts(t, Codex)
	o.Wait = DefaultCodexWait
	mustInstall(t, o)
	for _, ch := range mustInstall(t, o).Changes {
		if ch.Changed {
			t.Errorf("a second install with --wait changed %s:\n%s", ch.Path, ch.Diff)
		}
	}
	mustUninstall(t, o)
	if got := read(t, filepath.Join(o.Home, ".codex", "hooks.json")); got != "{}\n" {
		t.Errorf("uninstall left %s", got)
	}
}

// Qwen Code's answering from the board is opt-in as Codex's is (its
// Spec's AnswerWait): its PermissionRequest command hook runs "notch-web
// hook qwen --wait <wait>" in ~/.qwen/settings.json, a timeout above it;
// the other hooks stay short; uninstall takes it out. An agent whose
// answering needs no opt-in, or that cannot be answered, refuses a wait.
func TestQwenApprovalsOptIn(t *testing.T) {
	skipOnWindows(t)
	o := opts(t, "qwen")
	o.Wait = 10 * time.Second
	mustInstall(t, o)
	path := filepath.Join(o.Home, ".qwen", "settings.json")
	h := hooksOf(t, path)["PermissionRequest"]
	if c := h["command"].(string); !strings.Contains(c, "hook qwen") || !strings.Contains(c, "--wait 10s") || h["timeout"] != float64(15) {
		t.Fatalf("--approvals hook %v", h)
	}
	if c := hooksOf(t, path)["PreToolUse"]["command"].(string); strings.Contains(c, "--wait") {
		t.Fatalf("PreToolUse waits too: %q", c)
	}
	for _, ch := range mustInstall(t, o).Changes {
		if ch.Changed {
			t.Errorf("a second install with --wait changed %s:\n%s", ch.Path, ch.Diff)
		}
	}
	mustUninstall(t, o)
	if got := read(t, path); strings.Contains(got, "notch") {
		t.Errorf("uninstall left %s", got)
	}
	for _, agent := range []string{ClaudeCode, "gemini", "copilot"} {
		o := opts(t, agent)
		o.Wait = 10 * time.Second
		if _, err := Install(o); err == nil {
			t.Errorf("%s took --approvals' wait", agent)
		}
	}
}
