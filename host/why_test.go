package host

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
)

// TestWhyFromTheHook: a StopFailure's why is on the row while it is in
// error, its reset read against the hook's time; the next turn forgets it.
func TestWhyFromTheHook(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	e.send(t, e.hook("SessionStart", `,"source":"startup"`))
	e.send(t, e.hook("UserPromptSubmit", `,"prompt":"go"`))
	now := time.Date(2026, 12, 7, 12, 30, 0, 0, time.Local)
	stop := e.hook("StopFailure", `,"error":"rate_limit","last_assistant_message":"API Error: 429 You've hit your limit · resets 2pm"`)
	if _, err := e.h.Hook("claude-code", stop, now); err != nil {
		t.Fatal(err)
	}
	w, ok := e.h.Board().Whys()["s1"]
	want := time.Date(2026, 12, 7, 14, 0, 0, 0, time.Local).UnixMilli()
	if !ok || w.Kind != hookjson.WhyLimit || w.ResetsMs != want || w.Words != "API Error: 429 You've hit your limit · resets 2pm" {
		t.Fatalf("why = %+v %v, want a usage limit resetting at 14:00", w, ok)
	}
	if got := e.h.Board().Cards().Whys["s1"]; got != w {
		t.Errorf("the cards carry %+v, want %+v", got, w)
	}
	e.send(t, e.hook("UserPromptSubmit", `,"prompt":"again"`))
	if w, ok := e.h.Board().Whys()["s1"]; ok {
		t.Errorf("a new turn kept the old why: %+v", w)
	}
}

// TestWhyFromTheAgentsFiles: a Codex turn that failed on the model (a
// SessionEnd, no Stop) takes its why from the rollout the hooks named.
func TestWhyFromTheAgentsFiles(t *testing.T) {
	h := newHost(t, t.TempDir())
	dir := t.TempDir()
	rollout := filepath.Join(dir, "rollout-x.jsonl")
	now := time.Now()
	line := `{"timestamp":"` + now.Add(time.Second).UTC().Format(time.RFC3339Nano) + `","type":"event_msg","payload":{"type":"task_complete","error":{"message":"Codex ran out of room in the model's context window.","codex_error_info":"context_window_exceeded"}}}` + "\n"
	if err := os.WriteFile(rollout, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	hook := func(event, extra string, at time.Time) {
		t.Helper()
		body := `{"session_id":"c1","turn_id":"t1","transcript_path":` + jsonString(rollout) + `,"cwd":"/src/neon","hook_event_name":"` + event + `","model":"m","permission_mode":"default"` + extra + `}`
		if _, err := h.Hook("codex", []byte(body), at); err != nil {
			t.Fatal(err)
		}
	}
	hook("SessionStart", `,"source":"startup"`, now)
	hook("UserPromptSubmit", `,"prompt":"go"`, now)
	hook("SessionEnd", `,"reason":"other"`, now.Add(2*time.Second))
	if s := rows(t, h)["c1"]; s.Status != state.StatusError {
		t.Fatalf("row = %+v, want error", s)
	}
	if !h.readWhy("c1", now) {
		t.Fatal("no why read from the rollout")
	}
	if w := h.Board().Whys()["c1"]; w.Kind != hookjson.WhyContext {
		t.Errorf("why = %+v, want the context window", w)
	}
}

// TestWhyOfAKill: an agent killed mid-turn ended without a word.
func TestWhyOfAKill(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	agent, id := agentChild(t)
	e.hookAs(t, id, e.hook("SessionStart", `,"source":"startup"`))
	e.send(t, e.hook("UserPromptSubmit", `,"prompt":"go"`))
	waitStatus(t, e, "s1", state.StatusWorking)
	agent.Process.Kill()
	waitStatus(t, e, "s1", state.StatusError)
	waitfor.Until(t, "the row's why", func() bool { return e.h.Board().Whys()["s1"].Kind == hookjson.WhyEnded })
}
