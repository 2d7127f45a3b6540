package host

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
)

// fakeInfo is a file's stat as closedOut compares it.
type fakeInfo struct {
	os.FileInfo
	size int64
	mod  time.Time
}

func (f *fakeInfo) Size() int64        { return f.size }
func (f *fakeInfo) ModTime() time.Time { return f.mod }
func (f *fakeInfo) Sys() any           { return nil }

// Which marks close a row out anew, read after read: a mark the last read
// did not have, or had with another at; in the window's one-object shape,
// every new write of the file, with or without at.
func TestClosedOutByEveryShape(t *testing.T) {
	fin := func(at int64) state.Mark { return state.Mark{State: state.MarkFinished, At: at} }
	t0 := time.UnixMilli(1790000000000)
	v1 := &fakeInfo{size: 40, mod: t0}
	v2 := &fakeInfo{size: 40, mod: t0.Add(time.Millisecond)}
	type read struct {
		marks   map[string]state.Mark
		shape   state.MarkShape
		info    os.FileInfo
		partial bool
		want    []string
	}
	cases := []struct {
		name  string
		reads []read
	}{
		{"a keyed mark with at, then again unchanged", []read{
			{map[string]state.Mark{"a": fin(5)}, state.ShapeKeyed, v1, false, []string{"a"}},
			{map[string]state.Mark{"a": fin(5)}, state.ShapeKeyed, v2, false, nil},
		}},
		{"a keyed mark without at counts once", []read{
			{map[string]state.Mark{"a": fin(0)}, state.ShapeKeyed, v1, false, []string{"a"}},
			{map[string]state.Mark{"a": fin(0), "b": fin(0)}, state.ShapeKeyed, v2, false, []string{"b"}},
		}},
		{"a new at is a new close-out", []read{
			{map[string]state.Mark{"a": fin(5)}, state.ShapeKeyed, v1, false, []string{"a"}},
			{map[string]state.Mark{"a": fin(6)}, state.ShapeKeyed, v2, false, []string{"a"}},
		}},
		{"the window's object, written again whole, is another ✕", []read{
			{map[string]state.Mark{"a": fin(0)}, state.ShapeObject, v1, false, []string{"a"}},
			{map[string]state.Mark{"a": fin(0)}, state.ShapeObject, v1, false, nil}, // the same write seen twice
			{map[string]state.Mark{"a": fin(0)}, state.ShapeObject, v2, false, []string{"a"}},
		}},
		{"the window's object, one session then another then the first", []read{
			{map[string]state.Mark{"a": fin(0)}, state.ShapeObject, v1, false, []string{"a"}},
			{map[string]state.Mark{"b": fin(0)}, state.ShapeObject, v2, false, []string{"b"}},
			{map[string]state.Mark{"a": fin(0)}, state.ShapeObject, v1, false, []string{"a"}},
		}},
		{"an array grows: only the new element", []read{
			{map[string]state.Mark{"a": fin(0)}, state.ShapeArray, v1, false, []string{"a"}},
			{map[string]state.Mark{"a": fin(0), "b": fin(0)}, state.ShapeArray, v2, false, []string{"b"}},
		}},
		{"a mark of another state closes nothing", []read{
			{map[string]state.Mark{"a": {State: "open"}}, state.ShapeObject, v1, false, nil},
		}},
		{"a read that failed part way forgets nothing", []read{
			{map[string]state.Mark{"a": fin(0), "b": fin(0)}, state.ShapeStream, v1, false, []string{"a", "b"}},
			{map[string]state.Mark{"a": fin(0)}, state.ShapeStream, v2, true, nil},
			{map[string]state.Mark{"a": fin(0), "b": fin(0)}, state.ShapeStream, v2, false, nil},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen markSeen
			for i, r := range tc.reads {
				if got := seen.closedOut(r.marks, r.shape, r.info, r.partial); !slices.Equal(got, r.want) {
					t.Errorf("read %d: closed out %q, want %q", i+1, got, r.want)
				}
			}
		})
	}
}

// End to end through the host: the window's ✕ in the seed's own words —
// {sessionId, state:"finished"} with no at — retires the row, and so does
// the same ✕ again after the session came back under the same id.
func TestTheWindowsMarkRetiresItsRow(t *testing.T) {
	home := t.TempDir()
	h := newHost(t, home)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	manual := filepath.Join(home, "manual.json")
	settle := func() {
		t.Helper()
		if _, err := h.Ingest([]state.Event{
			{Type: state.TypeSessionOpened, Session: "s1"},
			{Type: state.TypeTurnEnded, Session: "s1", Outcome: state.OutcomeCompleted},
		}, time.Now()); err != nil {
			t.Fatal(err)
		}
		waitfor.Until(t, "the row", func() bool { _, ok := rows(t, h)["s1"]; return ok })
	}
	close := func() {
		t.Helper()
		tmp := manual + ".tmp"
		if err := os.WriteFile(tmp, []byte(`{"sessionId":"s1","state":"finished"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, manual); err != nil {
			t.Fatal(err)
		}
		waitfor.Until(t, "the row retired", func() bool { _, ok := rows(t, h)["s1"]; return !ok })
	}
	settle()
	close()
	settle()
	close()
}
