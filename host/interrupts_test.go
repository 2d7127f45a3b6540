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
	runUntilCleanup(t, h)
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
	runUntilCleanup(t, h)
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
	runUntilCleanup(t, h)
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

// TestGeminiEscAtConfirmationEndsTheAsk: a No / Esc at Gemini CLI's
// confirmation fires no hook (no AfterTool, no AfterAgent); its chat
// transcript gets the info line "Request cancelled." and then the history
// rewritten. The row needing the human becomes done, its approval gone —
// not a ghost "needs you" — and /quit after it settles done.
func TestGeminiEscAtConfirmationEndsTheAsk(t *testing.T) {
	home := t.TempDir()
	h := newHost(t, home)
	runUntilCleanup(t, h)
	transcript := filepath.Join(home, "session-2026-12-02T04-24-g1.jsonl")
	stamp := func(at time.Time) string { return at.UTC().Format(time.RFC3339Nano) }
	os.WriteFile(transcript, []byte(`{"id":"i0","timestamp":"`+stamp(time.Now().Add(-time.Minute))+`","type":"info","content":"Request cancelled."}`+"\n"), 0o644)
	base := `"session_id":"g1","transcript_path":` + strconv.Quote(transcript) + `,"cwd":"/src/x"`
	for _, body := range []string{
		`"hook_event_name":"BeforeAgent","prompt":"scenario:tool Create it again."`,
		`"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"touch x"}`,
		`"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Allow?","details":{"type":"exec","title":"Confirm Shell Command","command":"touch x"}`,
	} {
		if _, err := h.Hook("gemini", []byte("{"+base+","+body+"}"), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(3 * interruptPoll)
	if s := rows(t, h)["g1"]; s.Status != state.StatusAttention {
		t.Fatalf("an earlier cancel ended this ask: %+v", s)
	}
	f, _ := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"i1","timestamp":"` + stamp(time.Now()) + `","type":"info","content":"Request cancelled."}` + "\n")
	f.WriteString(`{"$set":{"lastUpdated":"` + stamp(time.Now()) + `"}}` + "\n")
	f.WriteString(`{"id":"m1","timestamp":"` + stamp(time.Now()) + `","type":"gemini","content":[{"text":"an older answer, rewritten"}]}` + "\n")
	f.Close()
	deadline := time.Now().Add(10 * time.Second)
	for s := rows(t, h)["g1"]; s.Status != state.StatusDone || s.Approval != nil; s = rows(t, h)["g1"] {
		if time.Now().After(deadline) {
			t.Fatalf("after Esc at the confirmation: %+v, want done with no approval", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
	hook := func(body string) {
		t.Helper()
		if _, err := h.Hook("gemini", []byte("{"+base+","+body+"}"), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// An API error: AfterAgent "[no response text]" — error, and it stays
	// (the cancel in the file is older than this turn).
	hook(`"hook_event_name":"BeforeAgent","prompt":"scenario:error400 Fail, please."`)
	hook(`"hook_event_name":"AfterAgent","prompt_response":"[no response text]"`)
	time.Sleep(4 * interruptPoll)
	if s := rows(t, h)["g1"]; s.Status != state.StatusError {
		t.Fatalf("after an API error: %+v, want error", s)
	}
	// An Esc while the model answers ends the turn with the same
	// AfterAgent; the transcript's cancel makes it done.
	hook(`"hook_event_name":"BeforeAgent","prompt":"scenario:slow Take your time."`)
	time.Sleep(10 * time.Millisecond)
	hook(`"hook_event_name":"AfterAgent","prompt_response":"[no response text]"`)
	f, _ = os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"i2","timestamp":"` + stamp(time.Now()) + `","type":"info","content":"Request cancelled."}` + "\n")
	f.Close()
	deadline = time.Now().Add(10 * time.Second)
	for rows(t, h)["g1"].Status != state.StatusDone {
		if time.Now().After(deadline) {
			t.Fatalf("after Esc while the model answers: %+v, want done (the human cancelled; nothing failed)", rows(t, h)["g1"])
		}
		time.Sleep(20 * time.Millisecond)
	}
	hook(`"hook_event_name":"SessionEnd","reason":"exit"`)
	if s := rows(t, h)["g1"]; s.Status != state.StatusDone {
		t.Fatalf("at /quit after the Esc: %+v, want done", s)
	}
}

// runUntilCleanup runs h until the test ends, and waits for it to stop
// before the test's temp folders go (a state write racing their removal).
func runUntilCleanup(t *testing.T, h *Host) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// TestCopilotFirstTurnInterruptAndFailure: GitHub Copilot CLI names its
// session file only on Stop, and fires no hook for a Ctrl-C (its file gets
// an "abort" line) nor for a failed model call in the TUI (ErrorOccurred at
// every retry, then a "session.error" line, no Stop). The host finds the
// file from its own environment at the first turn's start: the
// interrupted first turn ends done, the failed second one error, and a
// turn with neither stays working.
func TestCopilotFirstTurnInterruptAndFailure(t *testing.T) {
	home := t.TempDir()
	t.Setenv("COPILOT_HOME", filepath.Join(home, "copilot"))
	file := filepath.Join(home, "copilot", "session-state", "c1", "events.jsonl")
	os.MkdirAll(filepath.Dir(file), 0o755)
	stamp := func() string { return time.Now().UTC().Format(time.RFC3339Nano) }
	os.WriteFile(file, []byte(`{"type":"session.start","data":{"sessionId":"c1"},"timestamp":"`+stamp()+`"}`+"\n"), 0o644)
	appendLine := func(typ string) {
		f, _ := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"type":"` + typ + `","data":{},"id":"x","timestamp":"` + stamp() + `"}` + "\n")
		f.Close()
	}
	h := newHost(t, home)
	runUntilCleanup(t, h)
	hook := func(body string) {
		t.Helper()
		if _, err := h.Hook("copilot", []byte(`{"session_id":"c1","cwd":"/src/x",`+body+`}`), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	wait := func(step, status string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for s := rows(t, h)["c1"]; s.Status != status; s = rows(t, h)["c1"] {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %+v, want %s", step, s, status)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	hook(`"hook_event_name":"SessionStart","source":"new"`)
	hook(`"hook_event_name":"UserPromptSubmit","prompt":"scenario:slow"`)
	time.Sleep(3 * interruptPoll)
	if s := rows(t, h)["c1"]; s.Status != state.StatusWorking {
		t.Fatalf("a turn nothing ended: %+v, want working", s)
	}
	appendLine("abort")
	wait("after Ctrl-C in the first turn", state.StatusDone)

	time.Sleep(5 * time.Millisecond) // the next turn starts after the abort's stamp
	hook(`"hook_event_name":"UserPromptSubmit","prompt":"scenario:error400"`)
	hook(`"hook_event_name":"ErrorOccurred","error_context":"model_call","recoverable":true,"error":{"message":"400"}`)
	time.Sleep(3 * interruptPoll)
	if s := rows(t, h)["c1"]; s.Status != state.StatusWorking {
		t.Fatalf("an earlier abort, or ErrorOccurred, ended this turn: %+v", s)
	}
	appendLine("session.error")
	wait("after the model error", state.StatusError)
}

// TestCopilotWindow: Copilot CLI's usage records carry its model's window
// (maxPromptTokens): the host keeps it for the row as a statusline's
// window (the bar's budget when the row has none), beside the row's
// context tokens, and leaves the plan's windows alone.
func TestCopilotWindow(t *testing.T) {
	home := t.TempDir()
	h := newHost(t, home)
	runUntilCleanup(t, h)
	file := filepath.Join(home, "events.jsonl")
	os.WriteFile(file, []byte(`{"type":"session.usage_record","data":{"usage":{"inputTokens":2000,"cacheReadTokens":100,"cacheWriteTokens":0,"maxPromptTokens":128000,"initiator":"user"}},"timestamp":"2026-12-03T16:49:02.396Z"}`+"\n"), 0o644)
	for _, body := range []string{
		`"hook_event_name":"UserPromptSubmit","prompt":"go"`,
		`"hook_event_name":"Stop","transcript_path":` + strconv.Quote(file),
	} {
		if _, err := h.Hook("copilot", []byte(`{"session_id":"c2","cwd":"/src/x",`+body+`}`), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for rows(t, h)["c2"].ContextTokens != 2100 || h.Board().Usage().Sessions["c2"].WindowSize != 128000 {
		if time.Now().After(deadline) {
			t.Fatalf("row %+v, usage %+v: want 2100 tokens against a 128000 window", rows(t, h)["c2"], h.Board().Usage())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if u := h.Board().Usage(); u.Reported || u.FiveHour != nil {
		t.Errorf("the window touched the plan: %+v", u)
	}
}

// Qwen Code 0.24.4's refusal at its dialog fires no hook but, now and
// then, idle_prompt; its chat file records the call's result "cancelled"
// at once (qwen.Interrupted): the ask ends with no idle_prompt at all. An
// older refusal in the file does not end a later ask.
func TestQwenRefusalInTheChatFileEndsTheAsk(t *testing.T) {
	home := t.TempDir()
	h := newHost(t, home)
	runUntilCleanup(t, h)
	chat := filepath.Join(home, "q1.jsonl")
	stamp := func(at time.Time) string { return at.UTC().Format(time.RFC3339Nano) }
	cancelled := func(at time.Time) string {
		return `{"timestamp":"` + stamp(at) + `","type":"tool_result","toolCallResult":{"callId":"c","status":"cancelled"}}` + "\n"
	}
	os.WriteFile(chat, []byte(cancelled(time.Now().Add(-time.Minute))), 0o644)
	base := `"session_id":"q1","transcript_path":` + strconv.Quote(chat) + `,"cwd":"/src/x"`
	for _, body := range []string{
		`"hook_event_name":"UserPromptSubmit","prompt":"scenario:tool go","submitted_prompt":"scenario:tool go"`,
		`"hook_event_name":"PermissionRequest","tool_name":"run_shell_command","tool_input":{"command":"touch x"}`,
	} {
		if _, err := h.Hook("qwen", []byte("{"+base+","+body+"}"), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(3 * interruptPoll)
	if s := rows(t, h)["q1"]; s.Status != state.StatusAttention {
		t.Fatalf("an earlier refusal ended this ask: %+v", s)
	}
	f, _ := os.OpenFile(chat, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(cancelled(time.Now()))
	f.WriteString(`{"timestamp":"` + stamp(time.Now()) + `","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.tool_call"}}}` + "\n")
	f.Close()
	deadline := time.Now().Add(10 * time.Second)
	for s := rows(t, h)["q1"]; s.Status != state.StatusDone || s.Approval != nil; s = rows(t, h)["q1"] {
		if time.Now().After(deadline) {
			t.Fatalf("after the refusal: %+v, want done with no approval", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestQwenWindow: Qwen Code's Stop says the model's window
// (context_limit) beside the prompt's size: the host keeps it for the row
// as an agent's reported window, and the row's context tokens from
// input_tokens.
func TestQwenWindow(t *testing.T) {
	h := newHost(t, t.TempDir())
	runUntilCleanup(t, h)
	for _, body := range []string{
		`"hook_event_name":"UserPromptSubmit","prompt":"go","submitted_prompt":"go"`,
		`"hook_event_name":"Stop","context_usage":0.0105,"context_limit":200000,"input_tokens":2100`,
	} {
		if _, err := h.Hook("qwen", []byte(`{"session_id":"q2","cwd":"/src/x",`+body+`}`), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if s, w := rows(t, h)["q2"], h.Board().Usage().Sessions["q2"].WindowSize; s.ContextTokens != 2100 || w != 200000 {
		t.Fatalf("row %+v, window %d: want 2100 tokens against a 200000 window", s, w)
	}
	if u := h.Board().Usage(); u.Reported || u.FiveHour != nil {
		t.Errorf("the window touched the plan: %+v", u)
	}
}
