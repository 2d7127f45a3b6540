package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/settings"
)

// turnEvents is one realistic turn of a session: the shape of the live
// stream the fold sees most.
func turnEvents(id string, at int64) []Event {
	return []Event{
		{Type: TypeTurnStarted, Session: id, At: at},
		{Type: TypeToolStarted, Session: id, At: at + 1, Tool: "grep"},
		{Type: TypeToolEnded, Session: id, At: at + 2, Tool: "grep", Outcome: OutcomeOK},
		{Type: TypeContextTokens, Session: id, At: at + 3, Tokens: ptr[int64](120_000)},
		{Type: TypeToolStarted, Session: id, At: at + 4, Tool: "bash"},
		{Type: TypeApprovalRequested, Session: id, At: at + 5, Tool: "bash", Reason: "make build"},
		{Type: TypeApprovalResolved, Session: id, At: at + 6, Outcome: OutcomeAllowedOnce},
		{Type: TypeToolEnded, Session: id, At: at + 7, Tool: "bash", Outcome: OutcomeError},
		{Type: TypeTurnEnded, Session: id, At: at + 8, Outcome: OutcomeCompleted},
	}
}

// BenchmarkFoldEvents applies events one at a time (one batch each, as a
// live stream arrives) across 40 open sessions.
func BenchmarkFoldEvents(b *testing.B) {
	f := NewFold()
	var stream []Event
	for i := range MaxSessions {
		id := fmt.Sprintf("session-%02d", i)
		mustApply(b, f, Event{Type: TypeSessionOpened, Session: id, At: t0, Cwd: "/src/p"})
		stream = append(stream, turnEvents(id, t0+1)...)
	}
	n := 0
	for b.Loop() {
		ev := stream[n%len(stream)]
		ev.At = t0 + int64(n) // always moving forward: no clamp warnings
		if _, err := f.Apply(ev); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSnapshotEncode40 is one heartbeat's work: a 40-row snapshot and
// its encoding.
func BenchmarkSnapshotEncode40(b *testing.B) {
	f := NewFold()
	for i := range MaxSessions {
		id := fmt.Sprintf("session-%02d", i)
		mustApply(b, f, Event{Type: TypeSessionOpened, Session: id, At: t0, Title: "A session title of ordinary length", Cwd: `C:\Users\me\Projects\p`})
		mustApply(b, f, turnEvents(id, t0+1)[:5]...)
	}
	in := input(100)
	in.Context.Budget = ptr[int64](1_000_000)
	var size int
	for b.Loop() {
		data, err := Encode(f.Snapshot(in))
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.ReportMetric(float64(size), "bytes/doc")
}

// BenchmarkDecodeEvents decodes and validates a 999-event NDJSON body
// (111 sessions' turns).
func BenchmarkDecodeEvents(b *testing.B) {
	var body bytes.Buffer
	for i := range 111 {
		for _, ev := range turnEvents(fmt.Sprintf("session-%03d", i), t0) {
			line, _ := json.Marshal(ev)
			body.Write(line)
			body.WriteByte('\n')
		}
	}
	data := body.Bytes()
	b.SetBytes(int64(len(data)))
	n := 0
	for b.Loop() {
		evs, err := DecodeEvents(data)
		if err != nil {
			b.Fatal(err)
		}
		n += len(evs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkHeartbeat is one of state.json's heartbeats with nothing
// changed, 20 sessions, on the writer's path: "snapshot" builds, encodes
// and writes the document (the writer without Version, as before issue
// 34); "restamp" writes the last bytes with a fresh wallMs; both write
// through the writer's fsx.Rewriter (on Linux a spare rewritten under a
// lease and exchanged into place). "write" is the plain atomic write alone
// (a temp file renamed over, no fsync), the writer's way before the
// Rewriter.
func BenchmarkHeartbeat(b *testing.B) {
	f := NewFold()
	for i := range 20 {
		id := fmt.Sprintf("session-%02d", i)
		mustApply(b, f, Event{Type: TypeSessionOpened, Session: id, At: t0, Cwd: "/src/p", Title: "Refactor the module loader"})
		mustApply(b, f, turnEvents(id, t0+1)[:5]...)
	}
	snap := func(now time.Time) Document {
		return f.Snapshot(SnapshotInput{Now: now, HostPid: 7, Settings: settings.Defaults})
	}
	for _, mode := range []string{"snapshot", "restamp", "write"} {
		b.Run(mode, func(b *testing.B) {
			w := &Writer{Path: filepath.Join(b.TempDir(), "state.json"), Snapshot: snap}
			if mode == "restamp" {
				w.Version = func() uint64 { return 1 }
			}
			data, _ := Encode(snap(time.Now()))
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var err error
				if mode == "write" {
					err = fsx.WriteFileAtomicNoSync(w.Path, data)
				} else {
					err = w.write()
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
