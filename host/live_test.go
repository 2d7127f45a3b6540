package host

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

func TestParseLive(t *testing.T) {
	good := proc.ID{PID: 4242, Start: 77, Boot: "b-1"}.Encode()
	where := terminal.Where{TmuxPane: "%3", TmuxSocket: "/tmp/tmux-1000/default"}.Encode()
	for _, tc := range []struct {
		name, file string
		want       map[string]rowFacts
		bad        bool
	}{
		{name: "a row", file: `{"v":1,"rows":[{"session":"s1","agent":"codex","proc":"` + good + `","where":"` + where + `","transcript":"/home/me/.codex/r.jsonl"}]}`,
			want: map[string]rowFacts{"s1": {agent: "codex", proc: proc.Parse(good), transcript: "/home/me/.codex/r.jsonl", where: terminal.Parse(where)}}},
		{name: "bad rows are left out, good ones kept", file: `{"v":1,"rows":[
			{"session":"s1","agent":"no-such-agent"},
			{"session":"s2","proc":"pid=1&start=1&boot=b"},
			{"session":"s3","transcript":"relative.jsonl"},
			{"session":"s4","transcript":"/a\u001b[2J.jsonl"},
			{"session":"s5","where":"tmux-pane=%3;rm"},
			{"session":"","agent":"codex"},
			{"session":"ok","agent":"gemini"}]}`,
			want: map[string]rowFacts{"ok": {agent: "gemini"}}},
		{name: "another version", file: `{"v":2,"rows":[]}`, bad: true},
		{name: "not JSON", file: `{"v":1,`, bad: true},
		{name: "no rows", file: `{"v":1}`, want: map[string]rowFacts{}},
	} {
		got, err := parseLive([]byte(tc.file))
		if tc.bad != (err != nil) {
			t.Errorf("%s: err %v", tc.name, err)
			continue
		}
		if !tc.bad && !equalLive(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func equalLive(a, b map[string]rowFacts) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func FuzzParseLive(f *testing.F) {
	f.Add([]byte(`{"v":1,"rows":[{"session":"s1","agent":"codex","proc":"pid=42&start=1&boot=b","transcript":"/r.jsonl"}]}`)) // a good row
	f.Add([]byte(`{"v":1,"rows":[{"session":"s\n1","transcript":"/a\u0000"}]}`))                                              // control characters
	f.Add([]byte(`{"v":2}`))                                                                                                  // another version
	f.Fuzz(func(t *testing.T, b []byte) {
		live, err := parseLive(b)
		if err != nil {
			return
		}
		for id, lf := range live {
			if !state.ValidSessionID(id) || (lf.transcript != "" && !validTranscript(lf.transcript)) ||
				(!lf.proc.IsZero() && lf.proc.PID <= 1) {
				t.Fatalf("parseLive kept %q: %+v", id, lf)
			}
		}
	})
}

// liveHost is a host over home's files, started; stop ends it and waits.
func liveHost(t *testing.T, home string) (h *Host, logs *lockedWriter, stop func()) {
	t.Helper()
	return liveHostWith(t, home, nil)
}

// liveHostWith is liveHost with rec as the board's recorder (nil: none).
func liveHostWith(t *testing.T, home string, rec Recorder) (h *Host, logs *lockedWriter, stop func()) {
	t.Helper()
	logs = &lockedWriter{b: &strings.Builder{}}
	svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
	h = New(Config{
		StatePath:  filepath.Join(home, "state", "state.json"),
		ManualPath: filepath.Join(home, "manual.json"),
		Log:        slog.New(slog.NewJSONHandler(logs, nil)),
	}, svc)
	if rec != nil {
		h.Board().SetRecorder(rec)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	var once bool
	stop = func() {
		if !once {
			once = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	return h, logs, stop
}

// writtenLive waits until h's sidecar names proc for row.
func writtenLive(t *testing.T, home, row string, id proc.ID) {
	t.Helper()
	waitfor.Until(t, "live.json to name the row's process", func() bool {
		b, err := os.ReadFile(filepath.Join(home, "state", "live.json"))
		if err != nil {
			return false
		}
		live, err := parseLive(b)
		return err == nil && live[row].proc == id
	})
}

// watching waits until h watches process id.
func watching(t *testing.T, h *Host, id proc.ID) {
	t.Helper()
	waitfor.Until(t, "the host to watch the agent", func() bool {
		h.procs.mu.Lock()
		defer h.procs.mu.Unlock()
		return h.procs.byID[id] != nil
	})
}

// rowIs waits for row to be status on h.
func rowIs(t *testing.T, h *Host, row, status string) state.Session {
	t.Helper()
	var s state.Session
	waitfor.Until(t, row+" "+status, func() bool {
		var ok bool
		s, ok = rows(t, h)[row]
		return ok && s.Status == status
	})
	return s
}

// reconciled waits for the record of a turn the restarted host ended from
// the agent's own files (reconcile, Spec.Settled). That the end came from
// there, read as the host came back, is what these tests prove; the
// issue's "done within 5 s of the restart" (issue 28) is a real-time
// figure, asserted with that bound by conformance's restartWhileTurnEnds
// against the real CLIs, not here on a shared machine's clock.
func reconciled(t *testing.T, logs *lockedWriter, n int) {
	t.Helper()
	waitfor.Until(t, fmt.Sprintf("the restart's records of %d turns that ended while the host was down", n), func() bool {
		return strings.Count(logs.String(), "a turn that ended while the host was down is ended") == n
	})
}

func codexHook(session, rollout, event, extra string) []byte {
	return []byte(`{"session_id":"` + session + `","turn_id":"t1","transcript_path":` + jsonString(rollout) +
		`,"cwd":"/src/p","hook_event_name":"` + event + `","model":"m","permission_mode":"default"` + extra + `}`)
}

func TestRestartAfterTheAgentDied(t *testing.T) {
	home := t.TempDir()
	agent, id := agentChild(t)
	h1, _, stop1 := liveHost(t, home)
	if _, err := h1.HookFrom("codex", codexHook("s1", "", "SessionStart", `,"source":"startup"`), time.Now(), Origin{Proc: id}); err != nil {
		t.Fatal(err)
	}
	h1.Hook("codex", codexHook("s1", "", "UserPromptSubmit", `,"prompt":"go"`), time.Now())
	rowIs(t, h1, "s1", state.StatusWorking)
	writtenLive(t, home, "s1", id)
	stop1()
	agent.Process.Kill() // while the host is down

	h2, logs, _ := liveHost(t, home)
	s := rowIs(t, h2, "s1", state.StatusError)
	if s.Approval != nil {
		t.Errorf("approval %+v on a dead agent's row", s.Approval)
	}
	waitfor.Until(t, "the silent end's record", func() bool { return strings.Contains(logs.String(), "agents-notch.process.v1") })
}

func TestRestartKeepsWatching(t *testing.T) {
	home := t.TempDir()
	agent, id := agentChild(t)
	h1, _, stop1 := liveHost(t, home)
	h1.HookFrom("gemini", []byte(`{"session_id":"g1","cwd":"/src/p","hook_event_name":"SessionStart","source":"startup","timestamp":"2026-12-03T10:00:00Z"}`), time.Now(), Origin{Proc: id})
	h1.Hook("gemini", []byte(`{"session_id":"g1","cwd":"/src/p","hook_event_name":"BeforeAgent","prompt":"go","timestamp":"2026-12-03T10:00:01Z"}`), time.Now())
	rowIs(t, h1, "g1", state.StatusWorking)
	writtenLive(t, home, "g1", id)
	stop1()

	h2, _, _ := liveHost(t, home)
	// What the restarted host decided, not what a wait saw: it watches the
	// live agent's process for the row (only that process's end settles
	// it), and the row is still working once it does.
	watching(t, h2, id)
	if s := rows(t, h2)["g1"]; s.Status != state.StatusWorking {
		t.Fatalf("a live agent's restored row is %s", s.Status)
	}
	agent.Process.Kill()
	rowIs(t, h2, "g1", state.StatusError)
}

func TestRestartAfterTheTurnEnded(t *testing.T) {
	home := t.TempDir()
	agent, id := agentChild(t)
	rollout := filepath.Join(home, "rollout-1.jsonl")
	started := `{"timestamp":"` + time.Now().UTC().Format(time.RFC3339Nano) + `","type":"event_msg","payload":{"type":"task_started","turn_attribution":{"turn_id":"t1"}}}` + "\n"
	os.WriteFile(rollout, []byte(started), 0o644)
	h1, _, stop1 := liveHost(t, home)
	h1.HookFrom("codex", codexHook("s1", rollout, "SessionStart", `,"source":"startup"`), time.Now(), Origin{Proc: id})
	h1.HookFrom("codex", codexHook("s1", rollout, "UserPromptSubmit", `,"prompt":"go"`), time.Now(), Origin{Proc: id})
	rowIs(t, h1, "s1", state.StatusWorking)
	writtenLive(t, home, "s1", id)
	stop1()
	// The turn ends while the host is down: its Stop fires into nothing,
	// and the rollout says so.
	time.Sleep(10 * time.Millisecond)
	done := `{"timestamp":"` + time.Now().UTC().Format(time.RFC3339Nano) + `","type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","last_agent_message":"ok"}}` + "\n"
	f, _ := os.OpenFile(rollout, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(done)
	f.Close()

	restarted := time.Now()
	h2, logs, _ := liveHost(t, home)
	rowIs(t, h2, "s1", state.StatusDone)
	t.Logf("done %v after the restart", time.Since(restarted))
	reconciled(t, logs, 1)
	if !proc.Alive(id) || agent.ProcessState != nil {
		t.Fatal("the agent should still run")
	}
}

// A host stopped right after a hook (within livePace) still leaves what
// the hook said in the sidecar: the restarted host watches the agent.
func TestStopWritesTheLastFacts(t *testing.T) {
	home := t.TempDir()
	agent, id := agentChild(t)
	h1, _, stop1 := liveHost(t, home)
	waitfor.Until(t, "the host's first live.json", func() bool {
		_, err := os.Stat(filepath.Join(home, "state", "live.json"))
		return err == nil
	})
	h1.HookFrom("codex", codexHook("s1", "", "SessionStart", `,"source":"startup"`), time.Now(), Origin{Proc: id})
	// state.json holds the row as soon as it writes the change; live.json
	// is paced: the host is stopped before it writes.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if b, _ := os.ReadFile(filepath.Join(home, "state", "state.json")); strings.Contains(string(b), `"s1"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("state.json does not hold the row")
		}
	}
	stop1()
	b, err := os.ReadFile(filepath.Join(home, "state", "live.json"))
	if err != nil {
		t.Fatal(err)
	}
	if live, err := parseLive(b); err != nil || live["s1"].proc != id {
		t.Fatalf("live.json after a stop right after the hook: %s (%v)", b, err)
	}
	h2, logs, _ := liveHost(t, home)
	watching(t, h2, id) // the restored row met its agent (Run's restoreLive)
	agent.Process.Kill()
	waitfor.Until(t, "the restarted host to see the agent end", func() bool { return strings.Contains(logs.String(), "agents-notch.process.v1") })
}

func TestRestartAfterAReboot(t *testing.T) {
	home := t.TempDir()
	_, id := agentChild(t)
	h1, _, stop1 := liveHost(t, home)
	h1.HookFrom("codex", codexHook("s1", "", "SessionStart", `,"source":"startup"`), time.Now(), Origin{Proc: id})
	h1.Hook("codex", codexHook("s1", "", "UserPromptSubmit", `,"prompt":"go"`), time.Now())
	writtenLive(t, home, "s1", id)
	stop1()
	// The sidecar's process is of another boot: the machine restarted.
	p := filepath.Join(home, "state", "live.json")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "boot="+id.Boot, "boot=an-earlier-boot")), 0o644)

	h2, _, _ := liveHost(t, home)
	rowIs(t, h2, "s1", state.StatusError)
}

// lockedWriter is a log destination safe for the host's goroutines.
type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
