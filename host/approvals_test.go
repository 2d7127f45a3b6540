package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	adapters "github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// apEnv is a running host with approvals, its log captured, and a Claude
// Code session whose transcript is a real file.
type apEnv struct {
	h          *Host
	home       string
	transcript string
	logMu      sync.Mutex
	log        bytes.Buffer
}

func (e *apEnv) Write(p []byte) (int, error) {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	return e.log.Write(p)
}

// records are the log's agents-notch.approval.v1 records.
func (e *apEnv) records(t *testing.T) []map[string]any {
	t.Helper()
	e.logMu.Lock()
	defer e.logMu.Unlock()
	var out []map[string]any
	for line := range bytes.Lines(e.log.Bytes()) {
		var r map[string]any
		if json.Unmarshal(line, &r) == nil && r["log_type"] == "agents-notch.approval.v1" {
			out = append(out, r["data"].(map[string]any))
		}
	}
	return out
}

func newApEnv(t *testing.T, cfg ApprovalConfig) *apEnv {
	t.Helper()
	return newApEnvLog(t, cfg, func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, nil) })
}

// newApEnvLog is newApEnv whose host logs through handler(the env's log).
func newApEnvLog(t *testing.T, cfg ApprovalConfig, handler func(io.Writer) slog.Handler) *apEnv {
	t.Helper()
	e := &apEnv{home: t.TempDir()}
	if cfg.Linger == 0 {
		cfg.Linger = 300 * time.Millisecond
	}
	e.transcript = filepath.Join(e.home, "projects", "s1.jsonl")
	if err := os.MkdirAll(filepath.Dir(e.transcript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.transcript, []byte(`{"type":"user","message":{"role":"user","content":"hi"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	svc := settings.NewService(settings.Options{PanePath: filepath.Join(e.home, "settings.json")})
	e.h = New(Config{
		StatePath:  filepath.Join(e.home, "state.json"),
		ManualPath: filepath.Join(e.home, "manual.json"),
		Approvals:  cfg,
		Log:        slog.New(handler(e)),
	}, svc)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.h.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return e
}

// hook is a Claude Code hook payload for session s1 (or a subagent of it).
func (e *apEnv) hook(event, extra string) []byte {
	return []byte(`{"session_id":"s1","transcript_path":` + jsonString(e.transcript) +
		`,"cwd":"/home/me/src/argon","hook_event_name":"` + event + `"` + extra + `}`)
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func (e *apEnv) send(t *testing.T, payload []byte) {
	t.Helper()
	if _, err := e.h.Hook("claude-code", payload, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// held is one held hook request in flight.
type held struct {
	reply chan []byte
}

func (e *apEnv) hold(ctx context.Context, t *testing.T, payload []byte) held {
	t.Helper()
	h := held{reply: make(chan []byte, 1)}
	go func() {
		r, _, err := e.h.HookHeld(ctx, "claude-code", payload, time.Now(), MaxApprovalHold)
		if err != nil {
			t.Error(err)
		}
		h.reply <- r
	}()
	return h
}

func (h held) get(t *testing.T) []byte {
	t.Helper()
	select {
	case r := <-h.reply:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("the held hook was never answered")
		return nil
	}
}

func (h held) waiting(t *testing.T) {
	t.Helper()
	select {
	case r := <-h.reply:
		t.Fatalf("the hook was answered %q while the card waits", r)
	case <-time.After(50 * time.Millisecond):
	}
}

func bashCall(id, cmd string) string {
	return `,"tool_name":"Bash","tool_input":{"command":"` + cmd + `"},"tool_use_id":"` + id + `"`
}

func bashAsk(cmd string) string {
	return `,"tool_name":"Bash","tool_input":{"command":"` + cmd + `","description":"Run ` + cmd + `"},` +
		`"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"` + cmd + `"}],"behavior":"allow","destination":"localSettings"}]`
}

// waitCards waits until the board draws n cards, and returns them.
func waitCards(t *testing.T, h *Host, ok func([]Card) bool) []Card {
	t.Helper()
	var c []Card
	waitfor.Until(t, "the cards as wanted", func() bool {
		c = h.Board().Cards().Cards
		return ok(c)
	})
	return c
}

func nCards(n int, st string) func([]Card) bool {
	return func(cs []Card) bool {
		m := 0
		for _, c := range cs {
			if c.State == st {
				m++
			}
		}
		return m == n
	}
}

func (e *apEnv) row(t *testing.T, id string) state.Session {
	t.Helper()
	r, ok := rows(t, e.h)[id]
	if !ok {
		t.Fatalf("no row %s", id)
	}
	return r
}

// ask opens a turn, announces a call and holds its PermissionRequest until
// its card waits on the board.
func (e *apEnv) ask(ctx context.Context, t *testing.T, id, cmd string) (held, Card) {
	t.Helper()
	e.send(t, e.hook("PreToolUse", bashCall(id, cmd)))
	hr := e.hold(ctx, t, e.hook("PermissionRequest", bashAsk(cmd)))
	cs := waitCards(t, e.h, func(cs []Card) bool {
		for _, c := range cs {
			if c.Call == id && c.State == CardWaiting {
				return true
			}
		}
		return false
	})
	for _, c := range cs {
		if c.Call == id {
			return hr, c
		}
	}
	panic("unreachable")
}

func decision(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var w struct {
		HookSpecificOutput struct {
			HookEventName string         `json:"hookEventName"`
			Decision      map[string]any `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(body, &w); err != nil || w.HookSpecificOutput.HookEventName != "PermissionRequest" {
		t.Fatalf("not a PermissionRequest decision: %s (%v)", body, err)
	}
	return w.HookSpecificOutput.Decision
}

// A click on the board answers the held hook with Claude Code's documented
// decision: Allow once, Deny with the reason Claude reads, Always allow
// echoing the payload's suggestion (scoped to the session). The row is
// resolved at once (approvedAt on an allow), the card says how, the nonce
// is spent (a replay is refused), and one log record says who and how.
func TestBoardAnswersTheHeldHook(t *testing.T) {
	for _, tc := range []struct {
		decision, message string
		want              string // the decision JSON's shape
		approved          bool
	}{
		{DecideAllow, "", `{"behavior":"allow"}`, true},
		{DecideDeny, "not on main\nplease", `{"behavior":"deny","message":"not on main please"}`, false},
		{DecideDeny, "", `{"behavior":"deny","message":"The user denied this from the notch board."}`, false},
		{DecideAlways, "", `{"behavior":"allow","updatedPermissions":[{"behavior":"allow","destination":"session","rules":[{"ruleContent":"make test","toolName":"Bash"}],"type":"addRules"}]}`, true},
	} {
		t.Run(tc.decision+"/"+tc.message, func(t *testing.T) {
			e := newApEnv(t, ApprovalConfig{})
			e.send(t, e.hook("UserPromptSubmit", ""))
			hr, c := e.ask(context.Background(), t, "toolu_1", "make test")
			if c.Tool != "Bash" || c.Detail != "make test" || c.Note != "Run make test" || c.Always != "Bash(make test)" || len(c.Nonce) < 40 {
				t.Fatalf("card %+v", c)
			}
			if r := e.row(t, "s1"); r.Status != state.StatusAttention || r.Approval == nil {
				t.Fatalf("row %+v", r)
			}
			hr.waiting(t)
			got, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_1", Nonce: c.Nonce, Decision: tc.decision, Message: tc.message})
			if err != nil {
				t.Fatal(err)
			}
			body := hr.get(t)
			want := map[string]any{}
			json.Unmarshal([]byte(tc.want), &want)
			if d := decision(t, body); fmt.Sprint(d) != fmt.Sprint(want) {
				t.Fatalf("decision %v, want %v", d, want)
			}
			r := e.row(t, "s1")
			if r.Approval != nil || r.Status != state.StatusWorking || (r.ApprovedAt != nil) != tc.approved {
				t.Fatalf("row after the answer: status %s approval %+v approvedAt %v", r.Status, r.Approval, r.ApprovedAt)
			}
			if got.State != CardAnswered || got.By != ByBoard {
				t.Fatalf("card after the answer %+v", got)
			}
			// The nonce was single use.
			_, err = e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_1", Nonce: c.Nonce, Decision: DecideAllow})
			if !errors.Is(err, ErrNonce) {
				t.Fatalf("a replayed nonce: %v, want ErrNonce", err)
			}
			recs := e.records(t)
			if len(recs) != 1 || recs[0]["by"] != ByBoard || recs[0]["session"] != "s1" || recs[0]["tool"] != "Bash" || recs[0]["call"] != "toolu_1" {
				t.Fatalf("log records %v", recs)
			}
			if bytes.Contains(e.log.Bytes(), []byte("make test")) {
				t.Errorf("the log carries the tool's input:\n%s", e.log.Bytes())
			}
		})
	}
}

// A nonce is bound to its session and call; one that is forged, or names
// another session or call, is refused; "always" needs a suggestion; a
// decision the card does not take is refused and leaves the card waiting.
func TestAnswerRefusesWhatIsNotTheCards(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, c := e.ask(ctx, t, "toolu_1", "make test")
	for _, r := range []AnswerRequest{
		{Session: "s1", Call: "toolu_1", Nonce: strings.Repeat("A", 43), Decision: DecideAllow},
		{Session: "s2", Call: "toolu_1", Nonce: c.Nonce, Decision: DecideAllow},
		{Session: "s1", Call: "toolu_2", Nonce: c.Nonce, Decision: DecideAllow},
		{Session: "s1", Call: "", Nonce: c.Nonce, Decision: DecideAllow},
		{Session: "s1", Call: "toolu_1", Nonce: c.Nonce[:42], Decision: DecideAllow},
	} {
		if _, err := e.h.Answer(r); !errors.Is(err, ErrNonce) {
			t.Errorf("%+v: %v, want ErrNonce", r, err)
		}
	}
	if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_1", Nonce: c.Nonce, Decision: "maybe"}); !errors.Is(err, ErrDecision) {
		t.Errorf("decision maybe: %v", err)
	}
	waitCards(t, e.h, nCards(1, CardWaiting))
}

// The hold's end is no decision: the hook gets an empty answer (the
// terminal's prompt decides), the card says so and takes no click (409),
// and the row still asks, for the agent still does.
func TestHoldEndsWithNoDecision(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{Hold: 150 * time.Millisecond})
	start := time.Now()
	hr, c := e.ask(context.Background(), t, "toolu_1", "make test")
	if r := hr.get(t); r != nil {
		t.Fatalf("the hold's end answered %s; want nothing (never a deny)", r)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("answered after %v, before the hold", d)
	}
	waitCards(t, e.h, nCards(1, CardTerminal))
	if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_1", Nonce: c.Nonce, Decision: DecideAllow}); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("a click after the hold: %v, want ErrNotHeld (409)", err)
	}
	if r := e.row(t, "s1"); r.Status != state.StatusAttention || r.Approval == nil {
		t.Fatalf("the row stopped asking at the hold's end: %+v", r)
	}
	recs := e.records(t)
	if len(recs) != 1 || recs[0]["by"] != ByHold || recs[0]["outcome"] != OutcomeUnanswered {
		t.Fatalf("records %v", recs)
	}
	// The terminal answers later: the card goes, the row moves on.
	e.send(t, e.hook("PostToolUse", bashCall("toolu_1", "make test")))
	waitCards(t, e.h, nCards(1, CardAnswered))
	if r := e.row(t, "s1"); r.Status != state.StatusWorking || r.ApprovedAt == nil {
		t.Fatalf("row after the terminal allowed: %+v", r)
	}
}

// An agent that stops waiting (its own hook timeout, the connection gone)
// ends the hold the same way.
func TestHookGoneEndsTheHold(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	hr, _ := e.ask(ctx, t, "toolu_1", "make test")
	cancel()
	if r := hr.get(t); r != nil {
		t.Fatalf("answered %s", r)
	}
	waitCards(t, e.h, nCards(1, CardTerminal))
}

// Every signal that the human answered in the terminal clears the card
// (and a later click is told so, 409), releases the held hook with no
// decision, and logs one record by the terminal.
func TestTerminalAnswersClearTheCard(t *testing.T) {
	refusal := func(id string) string {
		return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id +
			`","content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.","is_error":true}]},"toolUseResult":"User rejected tool use"}` + "\n"
	}
	ran := func(id string) string {
		return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok","is_error":false}]}}` + "\n"
	}
	for _, tc := range []struct {
		name      string
		signal    func(e *apEnv, t *testing.T)
		outcome   string
		status    string // the row's afterwards
		approved  bool
		noAnswers bool // no approval record beyond the terminal's
	}{
		{"Esc or No: the refusal in the transcript", func(e *apEnv, t *testing.T) { appendFile(t, e.transcript, refusal("toolu_1")) },
			OutcomeDenied, state.StatusDone, false, false},
		{"Yes: the result in the transcript", func(e *apEnv, t *testing.T) { appendFile(t, e.transcript, ran("toolu_1")) },
			OutcomeAllowed, state.StatusWorking, true, false},
		{"PostToolUse", func(e *apEnv, t *testing.T) { e.send(t, e.hook("PostToolUse", bashCall("toolu_1", "make test"))) },
			OutcomeAllowed, state.StatusWorking, true, false},
		{"PostToolUseFailure", func(e *apEnv, t *testing.T) {
			e.send(t, e.hook("PostToolUseFailure", bashCall("toolu_1", "make test")+`,"error":"exit 2"`))
		}, OutcomeAllowed, state.StatusWorking, true, false},
		{"PermissionDenied", func(e *apEnv, t *testing.T) {
			e.send(t, e.hook("PermissionDenied", bashCall("toolu_1", "make test")))
		}, OutcomeDenied, state.StatusWorking, false, false},
		{"Yes, then the next PreToolUse", func(e *apEnv, t *testing.T) {
			appendFile(t, e.transcript, ran("toolu_1"))
			e.send(t, e.hook("PreToolUse", bashCall("toolu_2", "ls")))
		}, OutcomeAllowed, state.StatusWorking, true, false},
		{"Stop", func(e *apEnv, t *testing.T) { e.send(t, e.hook("Stop", "")) }, OutcomeMovedOn, state.StatusDone, false, false},
		{"StopFailure", func(e *apEnv, t *testing.T) { e.send(t, e.hook("StopFailure", `,"error":"rate_limit"`)) }, OutcomeMovedOn, state.StatusError, false, false},
		{"UserPromptSubmit", func(e *apEnv, t *testing.T) { e.send(t, e.hook("UserPromptSubmit", `,"prompt":"no, do X"`)) }, OutcomeMovedOn, state.StatusWorking, false, false},
		{"SessionEnd", func(e *apEnv, t *testing.T) { e.send(t, e.hook("SessionEnd", `,"reason":"other"`)) }, OutcomeMovedOn, state.StatusError, false, false}, // ended mid-turn: settled as error, kept
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newApEnv(t, ApprovalConfig{})
			e.send(t, e.hook("UserPromptSubmit", ""))
			hr, c := e.ask(context.Background(), t, "toolu_1", "make test")
			start := time.Now()
			tc.signal(e, t)
			if r := hr.get(t); r != nil {
				t.Fatalf("the held hook got %s; want an empty answer (the terminal decided)", r)
			}
			got := waitCards(t, e.h, nCards(1, CardAnswered))
			// Asserted with the issue's own bound (issue 23: "the card
			// clears within a second"), never tighter; the figure is logged.
			d := time.Since(start)
			t.Logf("the card cleared %v after the terminal's signal", d)
			if d > time.Second {
				t.Errorf("the card cleared after %v; want within a second (issue 23)", d)
			}
			if got[0].By != ByTerminal || got[0].Outcome != tc.outcome {
				t.Fatalf("card %+v, want by terminal, %s", got[0], tc.outcome)
			}
			if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_1", Nonce: c.Nonce, Decision: DecideAllow}); !errors.Is(err, ErrAnswered) {
				t.Fatalf("a click after the terminal answered: %v, want ErrAnswered (409)", err)
			}
			waitRow(t, e, "s1", func(r state.Session, ok bool) bool {
				return ok && r.Status == tc.status && r.Approval == nil && (r.ApprovedAt != nil) == tc.approved
			})
			recs := e.records(t)
			if len(recs) != 1 || recs[0]["by"] != ByTerminal || recs[0]["outcome"] != tc.outcome {
				t.Fatalf("records %v", recs)
			}
			// Answered cards go after a moment; the nonce is still told 409.
			waitCards(t, e.h, func(cs []Card) bool { return len(cs) == 0 })
			if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_1", Nonce: c.Nonce, Decision: DecideAllow}); !errors.Is(err, ErrAnswered) {
				t.Fatalf("a late click: %v, want ErrAnswered", err)
			}
		})
	}
}

// waitRow waits for the row of session id to be as wanted.
func waitRow(t *testing.T, e *apEnv, id string, ok func(state.Session, bool) bool) {
	t.Helper()
	waitfor.Until(t, "row "+id+" as wanted", func() bool {
		r, found := rows(t, e.h)[id]
		return ok(r, found)
	})
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// Parallel calls each get their own card, keyed by the call: answering one
// leaves the other waiting (and the row still asking); a refusal in the
// transcript clears only its own call's card.
func TestParallelCallsEachGetACard(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	e.send(t, e.hook("UserPromptSubmit", ""))
	e.send(t, e.hook("PreToolUse", bashCall("toolu_a", "make a")))
	e.send(t, e.hook("PreToolUse", bashCall("toolu_b", "make b")))
	hb := e.hold(context.Background(), t, e.hook("PermissionRequest", bashAsk("make b")))
	ha := e.hold(context.Background(), t, e.hook("PermissionRequest", bashAsk("make a")))
	cs := waitCards(t, e.h, nCards(2, CardWaiting))
	byCall := map[string]Card{}
	for _, c := range cs {
		byCall[c.Call] = c
	}
	if byCall["toolu_a"].Detail != "make a" || byCall["toolu_b"].Detail != "make b" || byCall["toolu_a"].Nonce == byCall["toolu_b"].Nonce {
		t.Fatalf("cards not keyed by their calls: %+v", cs)
	}
	if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_a", Nonce: byCall["toolu_a"].Nonce, Decision: DecideAllow}); err != nil {
		t.Fatal(err)
	}
	if d := decision(t, ha.get(t)); d["behavior"] != "allow" {
		t.Fatalf("a: %v", d)
	}
	hb.waiting(t)
	waitRow(t, e, "s1", func(r state.Session, ok bool) bool {
		return ok && r.Status == state.StatusAttention && r.Approval != nil && r.Approval.ToolName == "Bash"
	})
	// The other one's No at the terminal.
	appendFile(t, e.transcript, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}],"is_error":true}]}}`+"\n")
	if r := hb.get(t); r != nil {
		t.Fatalf("b got %s", r)
	}
	cs = waitCards(t, e.h, nCards(2, CardAnswered))
	for _, c := range cs {
		if c.Call == "toolu_b" && (c.By != ByTerminal || c.Outcome != OutcomeDenied) {
			t.Fatalf("b's card %+v", c)
		}
	}
}

// The host stopping while it holds a hook answers it with no decision (the
// agent falls back to its own prompt); the restarted host restores the
// row, still asking, with no card to click and the old nonce refused.
func TestHostRestartWhileHeld(t *testing.T) {
	home := t.TempDir()
	transcript := filepath.Join(home, "s1.jsonl")
	os.WriteFile(transcript, nil, 0o644)
	start := func() (*Host, context.CancelFunc, chan struct{}) {
		svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
		h := New(Config{StatePath: filepath.Join(home, "state.json"), ManualPath: filepath.Join(home, "manual.json"),
			Log: slog.New(slog.DiscardHandler)}, svc)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { h.Run(ctx); close(done) }()
		return h, cancel, done
	}
	h, stop, done := start()
	e := &apEnv{h: h, home: home, transcript: transcript}
	hr, c := e.ask(context.Background(), t, "toolu_1", "make test")
	waitFile(t, filepath.Join(home, "state.json"), func(d state.Document) bool {
		return len(d.Sessions) == 1 && d.Sessions[0].Status == state.StatusAttention
	})
	stop()
	if r := hr.get(t); r != nil {
		t.Fatalf("a host stopping answered %s; want nothing", r)
	}
	<-done
	h2, stop2, done2 := start()
	defer func() { stop2(); <-done2 }()
	r, ok := rows(t, h2)["s1"]
	if !ok || r.Status != state.StatusAttention || r.Approval == nil {
		t.Fatalf("restored row %+v", r)
	}
	if cs := h2.Board().Cards().Cards; len(cs) != 0 {
		t.Fatalf("a card survived the restart: %+v", cs)
	}
	if _, err := h2.Answer(AnswerRequest{Session: "s1", Call: "toolu_1", Nonce: c.Nonce, Decision: DecideAllow}); !errors.Is(err, ErrNonce) {
		t.Fatalf("the old nonce after a restart: %v, want ErrNonce", err)
	}
}

func waitFile(t *testing.T, path string, ok func(state.Document) bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if d, err := state.Decode(b); err == nil && ok(d) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never as wanted", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// --approvals off: nothing is held, the card is read-only, a click is
// refused; the Esc in the terminal still clears the row (issue 23).
func TestApprovalsOff(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{Off: true})
	e.send(t, e.hook("UserPromptSubmit", ""))
	e.send(t, e.hook("PreToolUse", bashCall("toolu_1", "make test")))
	r, _, err := e.h.HookHeld(context.Background(), "claude-code", e.hook("PermissionRequest", bashAsk("make test")), time.Now(), time.Minute)
	if err != nil || r != nil {
		t.Fatalf("approvals off held or answered: %s %v", r, err)
	}
	cs := waitCards(t, e.h, nCards(1, CardTerminal))
	if cs[0].Nonce != "" || !e.h.Board().Cards().Off {
		t.Fatalf("a read-only card has a nonce: %+v", cs[0])
	}
	if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_1", Nonce: "x", Decision: DecideAllow}); !errors.Is(err, ErrApprovalsOff) {
		t.Fatalf("click with approvals off: %v", err)
	}
	appendFile(t, e.transcript, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.","is_error":true}]}}`+"\n")
	waitRow(t, e, "s1", func(r state.Session, ok bool) bool { return ok && r.Status == state.StatusDone && r.Approval == nil })
}

// A subagent's refusal is read from its own transcript beside the
// session's; the subagent carries on (its row works again, not done).
func TestSubagentRefusalFromItsTranscript(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	sub := `,"agent_id":"a1","agent_type":"reviewer"`
	e.send(t, e.hook("UserPromptSubmit", ""))
	e.send(t, e.hook("SubagentStart", sub))
	e.send(t, e.hook("PreToolUse", bashCall("toolu_s", "make x")+sub))
	hr := e.hold(context.Background(), t, e.hook("PermissionRequest", bashAsk("make x")+sub))
	waitCards(t, e.h, nCards(1, CardWaiting))
	dir := filepath.Join(strings.TrimSuffix(e.transcript, ".jsonl"), "subagents")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "agent-a1.jsonl"), []byte(`{"type":"user","isSidechain":true,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s","content":"Permission for this tool use was denied. The tool use was rejected. Try a different approach.","is_error":true}]}}`+"\n"), 0o644)
	if r := hr.get(t); r != nil {
		t.Fatalf("answered %s", r)
	}
	cs := waitCards(t, e.h, nCards(1, CardAnswered))
	if cs[0].Session != "s1/a1" || cs[0].Outcome != OutcomeDenied {
		t.Fatalf("card %+v", cs[0])
	}
	// The card is answered before the row is settled: wait for the row.
	waitRow(t, e, "s1/a1", func(r state.Session, ok bool) bool {
		return ok && r.Status == state.StatusWorking && r.Approval == nil
	})
}

// Gemini CLI cannot be answered from outside: nothing is held, no card.
func TestGeminiIsNeverHeld(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	p := []byte(`{"session_id":"g1","cwd":"/src/x","hook_event_name":"Notification","notification_type":"ToolPermission","message":"Allow shell?","details":{"type":"exec","command":"rm x"}}`)
	if _, err := e.h.Hook("gemini", p, time.Now()); err != nil {
		t.Fatal(err)
	}
	if cs := e.h.Board().Cards(); len(cs.Cards) != 0 || cs.Agents["g1"] != "gemini" {
		t.Fatalf("cards %+v", cs)
	}
}

// newBareApprovals is a registry on a board of its own, with no host
// around it: observe, unhold and the linger drive it directly.
func newBareApprovals(t *testing.T, log *bytes.Buffer) *approvals {
	t.Helper()
	b := NewBoard(BoardConfig{}, false, settings.NewService(settings.Options{PanePath: filepath.Join(t.TempDir(), "settings.json")}))
	a := newApprovals(ApprovalConfig{Linger: time.Millisecond}, b, slog.New(slog.NewJSONHandler(log, nil)))
	t.Cleanup(a.shutdown)
	return a
}

// bareAsk is one call's PreToolUse then its PermissionRequest, held, in a
// row of its own; it returns the card.
func bareAsk(t *testing.T, a *approvals, row, call string) *entry {
	t.Helper()
	p := func(event, extra string) hookjson.Payload {
		pl, err := hookjson.Decode([]byte(`{"session_id":"` + row + `","hook_event_name":"` + event + `"` + extra + `}`))
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	a.observe("claude-code", p("PreToolUse", bashCall(call, "make")), false)
	e, _ := a.observe("claude-code", p("PermissionRequest", bashAsk("make")), true)
	if e == nil {
		t.Fatalf("%s/%s got no card", row, call)
	}
	return e
}

// After maxCards cards whose holds ended (the hook's client went, nothing
// more came from their rows), a new request still gets its card: the
// oldest goes, and the log says which.
func TestOrphanedCardsNeverStopApprovals(t *testing.T) {
	var log bytes.Buffer
	a := newBareApprovals(t, &log)
	first := bareAsk(t, a, "orphan-0", "toolu_0")
	a.unhold(first, ByHookGone)
	for i := 1; i < maxCards+5; i++ {
		a.unhold(bareAsk(t, a, fmt.Sprintf("orphan-%d", i), "toolu_0"), ByHookGone)
	}
	e := bareAsk(t, a, "fresh", "toolu_1")
	if e.State != CardWaiting || e.Nonce == "" {
		t.Fatalf("the new request's card %+v does not wait for the board", e.Card)
	}
	a.mu.Lock()
	n, kept := len(a.cards), a.cards[first.Key] != nil
	a.mu.Unlock()
	if n > maxCards || kept {
		t.Fatalf("%d cards on the board (at most %d), the oldest orphan kept: %v", n, maxCards, kept)
	}
	if !strings.Contains(log.String(), `"approval card dropped for a newer one`) || !strings.Contains(log.String(), `"session":"orphan-0"`) {
		t.Fatalf("the log does not say what was dropped:\n%.2000s", log.String())
	}
	// The dropped card's nonce is told what it is: not waited on (409).
	if _, err := a.answer(AnswerRequest{Session: "orphan-0", Call: "toolu_0", Nonce: first.Nonce, Decision: DecideAllow}); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("a click on the dropped card: %v, want ErrNotHeld", err)
	}
}

// What the registry keeps per answered card is bounded: cards answered in
// the terminal leave the board after their linger, and only a bounded
// number of their nonces is remembered.
func TestAnsweredCardsAreFreed(t *testing.T) {
	var log bytes.Buffer
	a := newBareApprovals(t, &log)
	const n = 3 * maxRecent
	for i := range n {
		row := fmt.Sprintf("row-%d", i)
		bareAsk(t, a, row, "toolu_1")
		done, _ := hookjson.Decode([]byte(`{"session_id":"` + row + `","hook_event_name":"PostToolUse"` + bashCall("toolu_1", "make") + `}`))
		a.observe("claude-code", done, false)
	}
	waitfor.Until(t, "the answered cards to leave the board", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return len(a.cards) == 0
	})
	a.mu.Lock()
	defer a.mu.Unlock()
	if kept := len(a.byNonce) + len(a.recent); kept > maxRecent {
		t.Fatalf("%d nonces kept for %d answered cards; want at most %d", kept, n, maxRecent)
	}
	if len(a.agents) > maxCallRows*4 || len(a.calls) > maxCallRows {
		t.Fatalf("%d agents, %d rows of calls kept", len(a.agents), len(a.calls))
	}
}

// The ✕ of a row frees its cards at once, whatever their state: the held
// hook is released with no decision, and a click is told nobody waits
// (410).
func TestClosedRowFreesItsCards(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	hr, c := e.ask(context.Background(), t, "toolu_1", "make test")
	ctx, cancel := context.WithCancel(context.Background())
	e.send(t, e.hook("PreToolUse", bashCall("toolu_2", "make lint")))
	gone := e.hold(ctx, t, e.hook("PermissionRequest", bashAsk("make lint")))
	waitCards(t, e.h, nCards(2, CardWaiting))
	cancel() // the second's client goes: its card can no longer be answered
	if r := gone.get(t); r != nil {
		t.Fatalf("answered %s", r)
	}
	waitCards(t, e.h, nCards(1, CardTerminal))
	e.h.Board().Retire("s1")
	if r := hr.get(t); r != nil {
		t.Fatalf("the ✕ answered the held hook %s; want nothing", r)
	}
	waitCards(t, e.h, func(cs []Card) bool { return len(cs) == 0 })
	if _, err := e.h.Answer(AnswerRequest{Session: "s1", Call: "toolu_1", Nonce: c.Nonce, Decision: DecideAllow}); !errors.Is(err, ErrAgentGone) {
		t.Fatalf("a click after the ✕: %v, want a 410 (ErrAgentGone)", err)
	}
	e.h.approvals.mu.Lock()
	defer e.h.approvals.mu.Unlock()
	if len(e.h.approvals.cards) != 0 || len(e.h.approvals.byNonce) != 0 {
		t.Fatalf("the registry keeps %d cards, %d nonces of a closed row", len(e.h.approvals.cards), len(e.h.approvals.byNonce))
	}
}

// The board may answer exactly the agents whose Spec says their
// PermissionRequest takes its decision (agent.Spec.Answers): a held
// request of any other agent makes a card that only says so.
func TestHoldableIsTheSpecs(t *testing.T) {
	want := map[string]bool{"claude-code": true, "codex": true, "qwen": true, "opencode": true, "kilo": true}
	for _, s := range registry.All {
		if got := holdable(s.Name, "Bash"); got != want[s.Name] {
			t.Errorf("holdable(%q) = %v, want %v", s.Name, got, want[s.Name])
		}
	}
	if holdable("nobody", "Bash") {
		t.Error("an unknown agent is holdable")
	}
	if holdable("qwen", "ask_user_question") || !holdable("qwen", "run_shell_command") {
		t.Error("Qwen Code's ask_user_question is held (its dialog shows whatever the hook allows), or its shell is not")
	}
	var log bytes.Buffer
	a := newBareApprovals(t, &log)
	for _, s := range registry.All {
		if s.Asks == adapters.AskOpenCodePlugin {
			continue // its plugin's ask is its own (TestOpenCodeAnsweredFromTheBoard)
		}
		pl, err := hookjson.Decode([]byte(`{"session_id":"r-` + s.Name + `","hook_event_name":"PermissionRequest"` + bashAsk("make") + `}`))
		if err != nil {
			t.Fatal(err)
		}
		e, _ := a.observe(s.Name, pl, true)
		if (e != nil) != want[s.Name] || (e != nil && (e.State != CardWaiting || e.Nonce == "")) {
			t.Errorf("%s: a held PermissionRequest's card %+v, want one the board answers: %v", s.Name, e, want[s.Name])
		}
	}
}

// Qwen Code asks before it announces the call (its PermissionRequest
// comes before PreToolUse, neither with the other's id): the card, keyed
// without a call, is answered from the board, and the held hook gets
// Claude Code's decision.
func TestQwenAnsweredFromTheBoard(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	ask := []byte(`{"session_id":"q1","cwd":"/src/x","hook_event_name":"PermissionRequest","permission_mode":"default",` +
		`"tool_name":"run_shell_command","tool_input":{"command":"touch x","description":"Create x"}}`)
	reply := make(chan []byte, 1)
	go func() {
		r, _, err := e.h.HookHeld(context.Background(), "qwen", ask, time.Now(), 10*time.Second)
		if err != nil {
			t.Error(err)
		}
		reply <- r
	}()
	c := waitCards(t, e.h, func(cs []Card) bool { return len(cs) == 1 && cs[0].State == CardWaiting })[0]
	if c.Call != "" || c.Agent != "qwen" || c.Always != "" || c.Detail != "touch x" {
		t.Fatalf("card %+v", c)
	}
	if _, err := e.h.Answer(AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: DecideDeny, Message: "not here"}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-reply:
		if got := string(r); got != `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not here"}}}` {
			t.Fatalf("qwen got %s", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the held hook was never answered")
	}
}

// openCodeAsk is the OpenCode plugin's held ask for request id.
func openCodeAsk(session, id string) []byte {
	return []byte(`{"hook_event_name":"notch-web.permission","session_id":"` + session + `","parent_id":"","cwd":"/src/x",` +
		`"properties":{"id":"` + id + `","permission":"bash","patterns":["ls -la"],"always":["ls *"],` +
		`"metadata":{"command":"ls -la"},"tool":{"callID":"toolu_1"}}}`)
}

// OpenCode's plugin holds its ask on the host: the card, keyed by
// OpenCode's request id, is answered from the board ("always" is
// OpenCode's always patterns), and the held request gets the decision;
// OpenCode's permission.replied of that answer changes nothing. Answered
// in the terminal first (permission.replied), the held request is let go
// with no answer, the card says so and a late click is ErrAnswered.
func TestOpenCodeAnsweredFromTheBoard(t *testing.T) {
	e := newApEnv(t, ApprovalConfig{})
	held := func(body []byte) chan []byte {
		reply := make(chan []byte, 1)
		go func() {
			r, _, err := e.h.HookHeld(context.Background(), "opencode", body, time.Now(), MaxApprovalHold)
			if err != nil {
				t.Error(err)
			}
			reply <- r
		}()
		return reply
	}
	got := func(reply chan []byte) string {
		select {
		case r := <-reply:
			return string(r)
		case <-time.After(5 * time.Second):
			t.Fatal("the held ask was never let go")
		}
		return ""
	}
	reply := held(openCodeAsk("ses_1", "per_1"))
	c := waitCards(t, e.h, func(cs []Card) bool { return len(cs) == 1 && cs[0].State == CardWaiting })[0]
	if c.Call != "per_1" || c.Agent != "opencode" || c.Tool != "bash" || c.Detail != "ls -la" || c.Always != "bash ls *" {
		t.Fatalf("card %+v", c)
	}
	if _, err := e.h.Answer(AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: DecideAlways}); err != nil {
		t.Fatal(err)
	}
	if r := got(reply); r != `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"opencode":"always"}]}}}` {
		t.Fatalf("the plugin got %s", r)
	}
	if _, err := e.h.Hook("opencode", []byte(`{"hook_event_name":"permission.replied","session_id":"ses_1","properties":{"requestID":"per_1","reply":"always"}}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	if cs := e.h.board.Cards().Cards; len(cs) != 1 || cs[0].By != ByBoard || cs[0].Outcome != OutcomeAlways {
		t.Fatalf("after OpenCode's reply to the board's answer: %+v", cs)
	}

	reply = held(openCodeAsk("ses_2", "per_2"))
	waitCards(t, e.h, func(cs []Card) bool {
		for _, x := range cs {
			if x.Call == "per_2" && x.State == CardWaiting {
				c = x
				return true
			}
		}
		return false
	})
	if _, err := e.h.Hook("opencode", []byte(`{"hook_event_name":"permission.replied","session_id":"ses_2","properties":{"requestID":"per_2","reply":"reject"}}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	if r := got(reply); r != "" {
		t.Fatalf("answered in the terminal, yet the plugin got %s", r)
	}
	if _, err := e.h.Answer(AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: DecideAllow}); !errors.Is(err, ErrAnswered) {
		t.Fatalf("a click after the terminal's answer: %v, want ErrAnswered", err)
	}
}

// FuzzOpenCodeAsk: whatever OpenCode's plugin sends, observe never panics,
// makes one card per request id, bounded, and a reply settles only that
// id's card.
func FuzzOpenCodeAsk(f *testing.F) {
	f.Add(string(openCodeAsk("ses_1", "per_1")))                                                                                                                                    // a real ask
	f.Add(`{"hook_event_name":"notch-web.permission","session_id":"s","properties":{"id":"p","permission":"bash","always":[1,2]}}`)                                                 // always not strings: no "always"
	f.Add(`{"hook_event_name":"notch-web.permission","session_id":"s","parent_id":"r","properties":{"id":"p","permission":"edit","always":["` + strings.Repeat("*", 5000) + `"]}}`) // a child's, a huge pattern
	f.Add(`{"hook_event_name":"permission.replied","session_id":"s","properties":{"requestID":"p","reply":"?"}}`)                                                                   // an unknown reply
	f.Add(`{"hook_event_name":"notch-web.permission","session_id":"s","properties":{"id":"p","permission":"ba\u202esh"}}`)                                                          // a bidi character
	f.Fuzz(func(t *testing.T, body string) {
		var log bytes.Buffer
		a := newBareApprovals(t, &log)
		p, err := hookjson.Decode([]byte(body))
		if err != nil {
			return
		}
		for range 2 {
			a.observe("opencode", p, true)
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if len(a.cards) > 1 {
			t.Fatalf("%d cards for one request", len(a.cards))
		}
		for _, e := range a.cards {
			if len(e.Detail) > maxDetail || len(e.Tool) > 4*hookjson.MaxTool || len(e.AlwaysRules) > maxOpenCodeAlways || len(e.Always) > 4*hookjson.MaxReason {
				t.Fatalf("an unbounded card: %+v", e.Card)
			}
		}
	})
}
