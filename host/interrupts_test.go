package host

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// TestEscWhileWorkingEndsTheTurn: Claude Code fires no hook when the human
// presses Esc while the model answers; its transcript gets "[Request
// interrupted by user]". The working row becomes done (not a ghost
// "working", and not an "error" at /exit), and an interrupt older than the
// turn does not end it.
func TestEscWhileWorkingEndsTheTurn(t *testing.T) {
	home := t.TempDir()
	h := newHost(t, home)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Run(ctx)
	transcript := filepath.Join(home, "s1.jsonl")
	line := func(at time.Time, content string) string {
		return `{"type":"user","timestamp":"` + at.UTC().Format(time.RFC3339Nano) + `","message":{"role":"user","content":` + content + "}}\n"
	}
	// An interrupt from an earlier turn is in the file already.
	os.WriteFile(transcript, []byte(line(time.Now().Add(-time.Minute), `"[Request interrupted by user]"`)), 0o644)
	base := `"session_id":"s1","transcript_path":` + strconv.Quote(transcript) + `,"cwd":"/src/x"`
	hook := func(body string) {
		t.Helper()
		if _, err := h.Hook("claude-code", []byte("{"+base+","+body+"}"), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	hook(`"hook_event_name":"UserPromptSubmit","prompt":"scenario:slow Take your time."`)
	time.Sleep(3 * interruptPoll)
	if s := rows(t, h)["s1"]; s.Status != state.StatusWorking {
		t.Fatalf("an earlier turn's interrupt ended this one: %+v", s)
	}
	f, _ := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line(time.Now(), `"scenario:slow Take your time."`))
	f.WriteString(line(time.Now(), `[{"type":"text","text":"[Request interrupted by user]"}]`))
	f.Close()
	deadline := time.Now().Add(10 * time.Second)
	for rows(t, h)["s1"].Status != state.StatusDone {
		if time.Now().After(deadline) {
			t.Fatalf("after Esc while working: %+v, want done", rows(t, h)["s1"])
		}
		time.Sleep(20 * time.Millisecond)
	}
	hook(`"hook_event_name":"SessionEnd","reason":"prompt_input_exit"`)
	if s := rows(t, h)["s1"]; s.Status != state.StatusDone {
		t.Fatalf("at /exit after the interrupt: %+v, want done (nothing failed)", s)
	}
}

// TestNoAtThePromptWithoutACardEndsTheAsk: a No / Esc at Claude Code's
// permission prompt fires no hook; when no card could watch the call (here
// the request was never matched to a PreToolUse), the transcript's
// "[Request interrupted by user for tool use]" still clears the ask: the
// row is done, its approval gone, never a ghost "needs you".
func TestNoAtThePromptWithoutACardEndsTheAsk(t *testing.T) {
	home := t.TempDir()
	h := newHost(t, home)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Run(ctx)
	transcript := filepath.Join(home, "s2.jsonl")
	line := func(at time.Time, content string) string {
		return `{"type":"user","timestamp":"` + at.UTC().Format(time.RFC3339Nano) + `","message":{"role":"user","content":` + content + "}}\n"
	}
	os.WriteFile(transcript, []byte(line(time.Now(), `"scenario:tool run it"`)), 0o644)
	base := `"session_id":"s2","transcript_path":` + strconv.Quote(transcript) + `,"cwd":"/src/x"`
	for _, body := range []string{
		`"hook_event_name":"UserPromptSubmit","prompt":"scenario:tool run it"`,
		`"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build"}`,
	} {
		if _, err := h.Hook("claude-code", []byte("{"+base+","+body+"}"), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if s := rows(t, h)["s2"]; s.Status != state.StatusAttention {
		t.Fatalf("after the request: %+v, want needs you", s)
	}
	time.Sleep(10 * time.Millisecond) // the refusal is stamped after the row began asking
	f, _ := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line(time.Now(), `[{"type":"tool_result","tool_use_id":"toolu_9","is_error":true,"content":"The user doesn't want to proceed with this tool use."}]`))
	f.WriteString(line(time.Now(), `[{"type":"text","text":"[Request interrupted by user for tool use]"}]`))
	f.Close()
	deadline := time.Now().Add(10 * time.Second)
	for s := rows(t, h)["s2"]; s.Status != state.StatusDone || s.Approval != nil; s = rows(t, h)["s2"] {
		if time.Now().After(deadline) {
			t.Fatalf("after No at the prompt: %+v, want done with no approval", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEscBeforeOutputEndsTheTurn: an Esc before the model's first output
// fires no hook and writes no transcript line in Claude Code 2.1.328; its
// status file (<config>/sessions/<pid>.json) turns "idle". The working row
// becomes done — not while the file says busy or an idle from before the
// turn — and /exit after it settles done, not error.
func TestEscBeforeOutputEndsTheTurn(t *testing.T) {
	home := t.TempDir()
	h := newHost(t, home)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Run(ctx)
	transcript := filepath.Join(home, ".claude", "projects", "-src-x", "s3.jsonl")
	sessions := filepath.Join(home, ".claude", "sessions")
	os.MkdirAll(filepath.Dir(transcript), 0o755)
	os.MkdirAll(sessions, 0o755)
	os.WriteFile(transcript, []byte(`{"type":"user","message":{"role":"user","content":"scenario:slow"}}`+"\n"), 0o644)
	writeStatus := func(st string, at time.Time) {
		t.Helper()
		body := `{"pid":4242,"sessionId":"s3","status":"` + st + `","statusUpdatedAt":` + strconv.FormatInt(at.UnixMilli(), 10) + `}`
		if err := os.WriteFile(filepath.Join(sessions, "4242.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeStatus("idle", time.Now().Add(-time.Minute)) // the previous turn's end
	base := `"session_id":"s3","transcript_path":` + strconv.Quote(transcript) + `,"cwd":"/src/x"`
	hook := func(body string) {
		t.Helper()
		if _, err := h.Hook("claude-code", []byte("{"+base+","+body+"}"), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	hook(`"hook_event_name":"UserPromptSubmit","prompt":"scenario:slow Take your time."`)
	time.Sleep(4 * interruptPoll)
	if s := rows(t, h)["s3"]; s.Status != state.StatusWorking {
		t.Fatalf("an idle from before the turn ended it: %+v", s)
	}
	writeStatus("busy", time.Now())
	time.Sleep(4 * interruptPoll)
	if s := rows(t, h)["s3"]; s.Status != state.StatusWorking {
		t.Fatalf("busy ended the turn: %+v", s)
	}
	writeStatus("idle", time.Now().Add(time.Millisecond))
	deadline := time.Now().Add(10 * time.Second)
	for rows(t, h)["s3"].Status != state.StatusDone {
		if time.Now().After(deadline) {
			t.Fatalf("after Esc before any output: %+v, want done", rows(t, h)["s3"])
		}
		time.Sleep(20 * time.Millisecond)
	}
	hook(`"hook_event_name":"SessionEnd","reason":"prompt_input_exit"`)
	if s := rows(t, h)["s3"]; s.Status != state.StatusDone {
		t.Fatalf("at /exit after the Esc: %+v, want done (nothing failed)", s)
	}
}
