package web

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/state"
)

// claude is a Claude Code hook payload for session s.
func claude(s, event, extra string) string {
	return `{"session_id":"` + s + `","transcript_path":"/nowhere/` + s + `.jsonl","cwd":"/home/me/src/argon","hook_event_name":"` + event + `"` + extra + `}`
}

func postRaw(t *testing.T, e *testEnv, path, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// Claude Code's own http hooks drive a row; with approvals from the board
// off, the reply is an empty 200 — never a decision — whatever the hook;
// only a body that is not a hook is refused. (With approvals on, a
// PermissionRequest is held for the board: approvals_test.go.)
func TestClaudeCodeHooks(t *testing.T) {
	e := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}})
	const s = "5d1f0c2e-7a43-4b8e-9c61-0e2b7f4a9d10"
	row := func() state.Session {
		t.Helper()
		doc, _ := e.board.Snapshot(time.Now())
		for _, r := range doc.Sessions {
			if r.ID == s {
				return r
			}
		}
		t.Fatalf("no row for %s in %+v", s, doc.Sessions)
		return state.Session{}
	}
	for _, step := range []struct {
		body     string
		status   string
		activity string
		approval bool
	}{
		// No SessionStart: the host may have restarted while the agent ran.
		{claude(s, "UserPromptSubmit", `,"prompt":"Build it"`), state.StatusWorking, "", false},
		{claude(s, "PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"rm -rf build"},"tool_use_id":"t1"`), state.StatusWorking, "Bash", false},
		{claude(s, "PermissionRequest", `,"tool_name":"Bash","tool_input":{"command":"rm -rf build"},"permission_suggestions":[]`), state.StatusAttention, "Bash", true},
		{claude(s, "PostToolUse", `,"tool_name":"Bash","tool_input":{"command":"rm -rf build"},"tool_response":{"stdout":""},"tool_use_id":"t1"`), state.StatusWorking, "Bash", false},
		{claude(s, "SomeHookFromTheFuture", ``), state.StatusWorking, "Bash", false},
		{claude(s, "Stop", ``), state.StatusDone, "Bash", false},
	} {
		status, body := postRaw(t, e, "/agents-notch/hooks/claude-code", step.body, nil)
		if status != 200 || body != "" {
			t.Fatalf("hook answered %d %q; want 200 with an empty body (never a decision)", status, body)
		}
		r := row()
		if r.Status != step.status || (r.Activity != nil && r.Activity.Label != step.activity) || (r.Approval != nil) != step.approval {
			t.Fatalf("after %.60s…: row %+v activity %+v approval %+v", step.body, r.Status, r.Activity, r.Approval)
		}
	}
	if r := row(); r.Project != "argon" || r.Cwd != "/home/me/src/argon" {
		t.Errorf("row opened from the payload: project %q cwd %q", r.Project, r.Cwd)
	}
	for _, tc := range []struct {
		path, body string
		want       int
	}{
		{"/agents-notch/hooks/claude-code", `{"hook_event_name":"Stop"}`, 400},
		{"/agents-notch/hooks/claude-code", `{"session_id":7,"hook_event_name":"Stop"}`, 400},
		{"/agents-notch/hooks/claude-code", `[1]`, 400},
		{"/agents-notch/hooks/cursor", claude(s, "Stop", ""), 404},
	} {
		if status, _ := postRaw(t, e, tc.path, tc.body, nil); status != tc.want {
			t.Errorf("POST %s %s: %d, want %d", tc.path, tc.body, status, tc.want)
		}
	}
	// An agent name from the path is quoted in the refusal, never echoed raw.
	status, body := postRaw(t, e, "/agents-notch/hooks/x%0D%0Aevent:%20datastar-patch-signals%3Cb%3E", claude(s, "Stop", ""), nil)
	if status != 404 || strings.ContainsAny(strings.TrimSpace(body), "\r\n<") || !strings.Contains(body, "no adapter for agent") {
		t.Errorf("a hostile agent name: %d %q", status, body)
	}
	// The hooks are behind the same locks as every write.
	if status, _ := postRaw(t, e, "/agents-notch/hooks/claude-code", claude(s, "Stop", ""), map[string]string{"Origin": "http://evil.example"}); status != 403 {
		t.Errorf("a foreign origin: %d, want 403", status)
	}
}

// A body that gives a key twice is an ambiguity (Go's decoder and the
// agent's keep the last, another reader the first): refused with 400 on
// every route outside JSON comes in — the hooks, the events, the board's
// own writes — and nothing of it applied.
func TestDuplicateKeysAreRefused(t *testing.T) {
	e := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}})
	for _, tc := range []struct{ path, body string }{
		{"/agents-notch/hooks/claude-code", `{"session_id":"dup-1","session_id":"dup-2","hook_event_name":"SessionStart","cwd":"/src/x"}`},
		{"/agents-notch/hooks/claude-code", `{"session_id":"dup-3","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","command":"rm -rf ~"}}`},
		{"/agents-notch/hooks/codex", `{"session_id":"dup-4","hook_event_name":"SessionStart","hook_event_name":"Stop","cwd":"/src/x"}`},
		{"/agents-notch/hooks/gemini", `{"session_id":"dup-5","hook_event_name":"SessionStart","cwd":"/src/x","cwd":"/"}`},
		{"/agents-notch/events", `{"type":"session.opened","session":"dup-6","session":"dup-7","cwd":"/src/x"}`},
		{"/agents-notch/events", `{"type":"session.opened","session":"dup-8","Session":"dup-9","cwd":"/src/x"}`},
		{"/agents-notch/finish", `{"sessionId":"dup-1","sessionId":"dup-2"}`},
	} {
		if st, body := postRaw(t, e, tc.path, tc.body, nil); st != http.StatusBadRequest || !strings.Contains(body, "given twice") {
			t.Errorf("%s %s: %d %s, want 400 saying the key is given twice", tc.path, tc.body, st, body)
		}
	}
	for _, id := range []string{"dup-1", "dup-2", "dup-3", "dup-4", "dup-5", "dup-6", "dup-7", "dup-8", "dup-9"} {
		if e.board.Has(id) {
			t.Errorf("a body with a key twice made the row %s", id)
		}
	}
}
