package host

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
)

// recorded is a Recorder that keeps the events it is handed.
type recorded struct {
	mu  sync.Mutex
	got []RecordedEvent
}

func (r *recorded) RecordEvents(evs []RecordedEvent) {
	r.mu.Lock()
	r.got = append(r.got, evs...)
	r.mu.Unlock()
}
func (r *recorded) RecordAnswer(RecordedAnswer)           {}
func (r *recorded) RecordCost(string, float64, time.Time) {}
func (r *recorded) RecordWhy(RecordedWhy)                 {}

// of are the events recorded for session.
func (r *recorded) of(session string) []state.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []state.Event
	for _, e := range r.got {
		if e.Session == session {
			out = append(out, e.Event)
		}
	}
	return out
}

// A restart rewrites no history: a session that had ended before it (its
// SessionEnd came) gets nothing at the restart, nor a warning that its
// process ended without a word; a settled row whose process ended while
// the host was down ends at the last moment the host knew it (its turn's
// end), not at the restart, and quietly. A row in a turn whose process
// ended while the host was down is the one the restart settles, and warns
// of: once its record is there, the others would have been too.
func TestARestartRewritesNoHistory(t *testing.T) {
	home := t.TempDir()
	finished, fid := agentChild(t)
	idle, iid := agentChild(t)
	busy, bid := agentChild(t)
	h1, _, stop1 := liveHost(t, home)
	hook := func(id string, proc proc.ID, event, extra string) {
		t.Helper()
		if _, err := h1.HookFrom("codex", codexHook(id, "", event, extra), time.Now(), Origin{Proc: proc}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []struct {
		id   string
		proc proc.ID
	}{{"finished", fid}, {"idle", iid}, {"busy", bid}} {
		hook(r.id, r.proc, "SessionStart", `,"source":"startup"`)
		hook(r.id, r.proc, "UserPromptSubmit", `,"prompt":"go"`)
	}
	hook("finished", fid, "Stop", "")
	hook("finished", fid, "SessionEnd", `,"reason":"other"`)
	hook("idle", iid, "Stop", "")
	rowIs(t, h1, "finished", state.StatusDone)
	idleSince := rowIs(t, h1, "idle", state.StatusDone).Since
	rowIs(t, h1, "busy", state.StatusWorking)
	writtenLive(t, home, "busy", bid)
	writtenLive(t, home, "idle", iid)
	stop1()
	for _, p := range []interface{ Kill() error }{finished.Process, idle.Process, busy.Process} {
		p.Kill() // while the host is down
	}
	for _, id := range []proc.ID{fid, iid, bid} {
		waitfor.Until(t, "the agent gone", func() bool { return !proc.Alive(id) })
	}

	rec := &recorded{}
	restarted := time.Now()
	h2, logs, _ := liveHostWith(t, home, rec)
	rowIs(t, h2, "busy", state.StatusError)
	waitfor.Until(t, "the busy row's silent end", func() bool { return strings.Contains(logs.String(), `"session":"busy"`) })
	if got := rec.of("finished"); len(got) != 0 {
		t.Errorf("the finished session's history got %+v at the restart", got)
	}
	if strings.Contains(logs.String(), `"session":"finished"`) || strings.Contains(logs.String(), `"session":"idle"`) {
		t.Errorf("the restart logged a settled row's end:\n%s", logs)
	}
	got := rec.of("idle")
	if len(got) != 1 || got[0].Type != state.TypeSessionEnded || got[0].At != idleSince || got[0].Outcome != state.OutcomeCompleted {
		t.Errorf("the idle session's history got %+v at the restart, want its end at its turn's end (%d), done", got, idleSince)
	}
	if got := rec.of("busy"); len(got) != 1 || got[0].Type != state.TypeSessionEnded || got[0].At < restarted.UnixMilli() || got[0].Outcome != state.OutcomeError {
		t.Errorf("the busy session's history got %+v, want its end, an error, at the restart", got)
	}
	for id, status := range map[string]string{"finished": state.StatusDone, "idle": state.StatusDone, "busy": state.StatusError} {
		if s := rows(t, h2)[id]; s.Status != status {
			t.Errorf("%s is %s after the restart, want %s", id, s.Status, status)
		}
	}
}

// The history is told how a session ended as the board shows it: a
// session.ended with no outcome on a row in a turn (a kill mid-turn, a
// SessionEnd mid-turn) is an error, and so are its subagents in a turn;
// on a settled row it keeps the row's verdict (a failed last turn stays
// an error).
func TestTheHistoryIsToldTheBoardsVerdict(t *testing.T) {
	ev := func(typ, session string, extra ...func(*state.Event)) state.Event {
		e := state.Event{Type: typ, Session: session}
		for _, f := range extra {
			f(&e)
		}
		return e
	}
	sub := func(parent string) func(*state.Event) {
		return func(e *state.Event) { e.Origin, e.Parent = state.OriginSubagent, parent }
	}
	failed := func(e *state.Event) { e.Outcome = state.OutcomeError }
	completed := func(e *state.Event) { e.Outcome = state.OutcomeCompleted }
	for _, c := range []struct {
		name string
		evs  []state.Event
		want map[string]string // session → the outcome of its recorded session.ended
	}{
		{"ended mid-turn", []state.Event{ev(state.TypeSessionOpened, "a"), ev(state.TypeTurnStarted, "a"), ev(state.TypeSessionEnded, "a")},
			map[string]string{"a": state.OutcomeError}},
		{"ended at an ask", []state.Event{ev(state.TypeSessionOpened, "a"), ev(state.TypeTurnStarted, "a"),
			ev(state.TypeApprovalRequested, "a", func(e *state.Event) { e.Tool = "Bash" }), ev(state.TypeSessionEnded, "a")},
			map[string]string{"a": state.OutcomeError}},
		{"ended after its turn", []state.Event{ev(state.TypeSessionOpened, "a"), ev(state.TypeTurnStarted, "a"), ev(state.TypeTurnEnded, "a", completed), ev(state.TypeSessionEnded, "a")},
			map[string]string{"a": state.OutcomeCompleted}},
		{"ended after a failed turn", []state.Event{ev(state.TypeSessionOpened, "a"), ev(state.TypeTurnStarted, "a"), ev(state.TypeTurnEnded, "a", failed), ev(state.TypeSessionEnded, "a")},
			map[string]string{"a": state.OutcomeError}},
		{"a failure ends a done row", []state.Event{ev(state.TypeSessionOpened, "a"), ev(state.TypeTurnStarted, "a"), ev(state.TypeTurnEnded, "a", completed), ev(state.TypeSessionEnded, "a", failed)},
			map[string]string{"a": state.OutcomeError}},
		{"its subagents end with it", []state.Event{ev(state.TypeSessionOpened, "a"), ev(state.TypeTurnStarted, "a"),
			ev(state.TypeSessionOpened, "a-sub1", sub("a")), ev(state.TypeTurnStarted, "a-sub1"),
			ev(state.TypeSessionOpened, "a-sub2", sub("a")), ev(state.TypeTurnStarted, "a-sub2"), ev(state.TypeTurnEnded, "a-sub2", completed),
			ev(state.TypeTurnEnded, "a", completed), ev(state.TypeSessionEnded, "a")},
			map[string]string{"a": state.OutcomeCompleted, "a-sub1": state.OutcomeError, "a-sub2": state.OutcomeCompleted}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHost(t, t.TempDir())
			rec := &recorded{}
			h.Board().SetRecorder(rec)
			for _, e := range c.evs {
				if _, err := h.Board().Ingest([]state.Event{e}, time.Now()); err != nil {
					t.Fatal(err)
				}
			}
			board := rows(t, h)
			for id, want := range c.want {
				var ends []string
				for _, e := range rec.of(id) {
					if e.Type == state.TypeSessionEnded {
						ends = append(ends, e.Outcome)
					}
				}
				if len(ends) != 1 || ends[0] != want {
					t.Errorf("%s: recorded ends %q, want one %q (the board: %s)", id, ends, want, board[id].Status)
				}
				if (want == state.OutcomeError) != (board[id].Status == state.StatusError) {
					t.Errorf("%s: the board says %s, the history %s", id, board[id].Status, want)
				}
			}
		})
	}
}

// A restarted host reconciles OpenCode's and Copilot CLI's rows as it does
// every agent's: a turn that ended while it was down (no hook said so) is
// ended within 5 s, from the agent's own files — OpenCode's database, and
// Copilot's session file, found by the session's id (no hook named it in
// a first turn).
func TestRestartReconcilesEveryAgent(t *testing.T) {
	data, copilotHome := t.TempDir(), t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("COPILOT_HOME", copilotHome)
	const oc, cp = "ses_restart1", "5b36f456-ace9-4b68-87a8-490269eaf938"
	home := t.TempDir()
	_, ocProc := agentChild(t)
	_, cpProc := agentChild(t)
	h1, _, stop1 := liveHost(t, home)
	send := func(agent string, id proc.ID, body string) {
		t.Helper()
		if _, err := h1.HookFrom(agent, []byte(body), time.Now(), Origin{Proc: id}); err != nil {
			t.Fatal(err)
		}
	}
	send("opencode", ocProc, `{"hook_event_name":"session.created","session_id":"`+oc+`","parent_id":"","cwd":"/src/a","properties":{"title":"x"}}`)
	send("opencode", ocProc, `{"hook_event_name":"session.status","session_id":"`+oc+`","parent_id":"","cwd":"/src/a","properties":{"status":{"type":"busy"}}}`)
	send("copilot", cpProc, `{"hook_event_name":"SessionStart","session_id":"`+cp+`","cwd":"/src/a","source":"new"}`)
	send("copilot", cpProc, `{"hook_event_name":"UserPromptSubmit","session_id":"`+cp+`","cwd":"/src/a","prompt":"go"}`)
	rowIs(t, h1, oc, state.StatusWorking)
	rowIs(t, h1, cp, state.StatusWorking)
	writtenLive(t, home, oc, ocProc)
	writtenLive(t, home, cp, cpProc)
	stop1()

	// The turns end while the host is down: each agent writes it down.
	done := time.Now().Add(time.Second).UnixMilli()
	os.MkdirAll(filepath.Join(data, "opencode"), 0o700)
	db, err := sql.Open("sqlite", filepath.Join(data, "opencode", "opencode.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL)",
		fmt.Sprintf(`INSERT INTO message VALUES ('msg_1', '%s', 1, 1, '{"role":"user","time":{"created":1}}')`, oc),
		fmt.Sprintf(`INSERT INTO message VALUES ('msg_2', '%s', 2, 2, '{"role":"assistant","time":{"created":2,"completed":%d},"finish":"stop"}')`, oc, done),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	dir := filepath.Join(copilotHome, "session-state", cp)
	os.MkdirAll(dir, 0o700)
	stamp := time.UnixMilli(done).UTC().Format(time.RFC3339Nano)
	os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(`{"type":"user.message","data":{},"timestamp":"`+stamp+`"}`+"\n"+
		`{"type":"hook.start","data":{"hookType":"agentStop"},"timestamp":"`+stamp+`"}`+"\n"), 0o600)

	restarted := time.Now()
	h2, logs, _ := liveHost(t, home)
	rowIs(t, h2, oc, state.StatusDone)
	rowIs(t, h2, cp, state.StatusDone)
	t.Logf("both done %v after the restart", time.Since(restarted))
	reconciled(t, logs, 2)
}
