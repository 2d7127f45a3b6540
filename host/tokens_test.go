package host

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
)

// fakeFile is a transcript whose size, modification time and count the test
// sets between reads.
type fakeFile struct {
	size   int64
	mod    time.Time
	tokens int64
	reads  int
}

func (f *fakeFile) reader() *tokenReader {
	t := newTokenReader()
	t.stat = func(string) (int64, time.Time, bool) { return f.size, f.mod, true }
	return t
}

func (f *fakeFile) read(hookjson.Transcript) (int64, bool) { f.reads++; return f.tokens, true }

// TestTokenReaderRereadsUntilSettled: the transcript is read when the hook
// names it and again as it settles: a flush that lands after the hook's
// read is still seen, and the series ends once the file stops changing,
// bounded by settleAfter.
func TestTokenReaderRereadsUntilSettled(t *testing.T) {
	t0 := time.Unix(1_790_000_000, 0)
	f := &fakeFile{size: 100, mod: t0, tokens: 1000}
	r := f.reader()
	got := map[string]int64{}
	apply := func(s string, n int64) { got[s] = n }
	tr := hookjson.Transcript{Path: "/t/s.jsonl", Session: "s"}

	r.want(tr, f.read, t0)
	next := r.readDue(t0, apply)
	if got["s"] != 1000 || next != t0.Add(settleAfter[1]) {
		t.Fatalf("the read at the hook: tokens %d, next %v", got["s"], next.Sub(t0))
	}
	// The reply's usage is flushed after the hook: the next read sees it.
	f.size, f.mod, f.tokens = 180, t0.Add(20*time.Millisecond), 1500
	if next := r.readDue(t0.Add(100*time.Millisecond), apply); f.reads != 1 || next != t0.Add(settleAfter[1]) {
		t.Fatalf("a read before its time: reads %d", f.reads)
	}
	r.readDue(t0.Add(settleAfter[1]), apply)
	if got["s"] != 1500 {
		t.Fatalf("after the flush: tokens %d, want 1500 (the stale count stayed)", got["s"])
	}
	// Unchanged at the 1 s read: settled, the series ends.
	if next := r.readDue(t0.Add(settleAfter[2]), apply); !next.IsZero() || f.reads != 3 {
		t.Fatalf("an unchanged file at %v: next %v, reads %d; want the series over after 3", settleAfter[2], next, f.reads)
	}

	// A file that keeps changing is read at most len(settleAfter) times.
	r.want(tr, f.read, t0)
	for i, d := range settleAfter {
		f.size += 10
		r.readDue(t0.Add(d), apply)
		if i == len(settleAfter)-1 {
			if _, next := r.due(t0.Add(time.Hour)); !next.IsZero() || len(r.pending) != 0 {
				t.Fatal("the series did not end after its last read")
			}
		}
	}
	if f.reads != 3+len(settleAfter) {
		t.Fatalf("reads %d, want %d", f.reads, 3+len(settleAfter))
	}
}

// TestTokenReaderRestartsOnANewNaming: a hook naming the transcript again
// (a late notification, the next Stop) starts the series again, so the
// file is read after it too; a read of the old series does not end the new.
func TestTokenReaderRestartsOnANewNaming(t *testing.T) {
	t0 := time.Unix(1_790_000_000, 0)
	f := &fakeFile{size: 100, mod: t0, tokens: 1}
	r := f.reader()
	apply := func(string, int64) {}
	tr := hookjson.Transcript{Path: "/t/s.jsonl", Session: "s"}
	r.want(tr, f.read, t0)
	r.readDue(t0, apply)
	r.readDue(t0.Add(settleAfter[1]), apply)
	old, _ := r.due(t0.Add(settleAfter[2]))
	r.want(tr, f.read, t0.Add(2*time.Second)) // the late notification
	r.done(old[0], f.size, f.mod)             // the old series' read lands after it
	if batch, _ := r.due(t0.Add(2 * time.Second)); len(batch) != 1 || batch[0].round != 0 {
		t.Fatalf("the new naming's series: %+v", batch)
	}
}

// TestLateTranscriptFlushReachesTheRow: through a host, the tokens of a
// reply whose usage reaches the transcript only after its Stop hook reach
// the row anyway, and so do a subagent's, read from its own transcript
// (every line a sidechain line).
func TestLateTranscriptFlushReachesTheRow(t *testing.T) {
	home := t.TempDir()
	h := newHost(t, home)
	ctx, cancel := context.WithCancel(context.Background())
	// Run ends (and its last write of state.json is done) before the
	// temporary home is removed.
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	usage := func(req string, n int, side bool) string {
		return `{"type":"assistant","isSidechain":` + strconv.FormatBool(side) + `,"requestId":"` + req + `","message":{"model":"claude-sonnet-4-5","role":"assistant","usage":{"input_tokens":` + strconv.Itoa(n) + `,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}` + "\n"
	}
	transcript := filepath.Join(home, "s1.jsonl")
	os.WriteFile(transcript, []byte(usage("r1", 1000, false)), 0o644)
	sub := filepath.Join(home, "s1", "subagents", "agent-a1.jsonl")
	os.MkdirAll(filepath.Dir(sub), 0o755)
	os.WriteFile(sub, []byte(usage("rs", 777, true)), 0o644)

	hook := func(body string) {
		t.Helper()
		if _, err := h.Hook("claude-code", []byte(body), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	base := `"session_id":"s1","transcript_path":` + strconv.Quote(transcript) + `,"cwd":"/src/x"`
	hook(`{` + base + `,"hook_event_name":"UserPromptSubmit","prompt":"go"}`)
	hook(`{` + base + `,"hook_event_name":"SubagentStart","agent_id":"a1","agent_type":"Explore"}`)
	hook(`{` + base + `,"hook_event_name":"Stop","stop_hook_active":false}`)
	// The final reply's usage is flushed 150 ms after the Stop hook.
	time.Sleep(150 * time.Millisecond)
	f, _ := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(usage("r2", 4321, false))
	f.Close()

	deadline := time.Now().Add(10 * time.Second)
	for {
		r := rows(t, h)
		if r["s1"].ContextTokens == 4321 && r["s1/a1"].ContextTokens == 777 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tokens: session %d (want 4321, the reply flushed after Stop), subagent %d (want 777)",
				r["s1"].ContextTokens, r["s1/a1"].ContextTokens)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
