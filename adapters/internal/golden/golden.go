// Package golden is the adapters' shared golden-test harness: it drives a
// recorded hook sequence through an adapter and a real fold, as a host
// would, and compares the steps and the resulting rows with a golden file.
package golden

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	goldenfile "github.com/notch-web/notch-web/internal/golden"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// T0 is the fake clock's start; step n is stamped T0 + n seconds.
const T0 = int64(1_790_000_000_000)

// MapFunc is an adapter's Map.
type MapFunc func(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error)

// Run runs every testdata/*.jsonl file in the package under test as a
// subtest. A case file holds one hook payload per line, exactly as the agent
// sends it; blank lines and lines starting with "#" (what the sequence
// shows) are skipped. Each payload is mapped with the fold's Session as the
// lookup, every event it yields must validate, and its batch (Open for
// unheld rows, then Events) is stamped and applied, as a host does. The
// steps and the final rows are compared with testdata/NAME.golden.json; on
// a mismatch NAME.actual.json is written and the diff printed. With update
// the golden is rewritten instead (review it by reading).
func Run(t *testing.T, mapf MapFunc, update bool) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/*.jsonl cases (%v)", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := Replay(t, mapf, data)
			goldenfile.Check(t, filepath.Join("testdata", name+".golden.json"), filepath.Join("testdata", name+".actual.json"), got, update)
		})
	}
}

// step is one payload's record in a golden file.
type step struct {
	line       int
	hook       string
	err        string
	applied    []state.Event
	transcript hookjson.Transcript
	window     hookjson.Window
	why        hookjson.RowWhy
}

// Replay plays one case file (see Run) and returns its golden rendering.
func Replay(t testing.TB, mapf MapFunc, data []byte) []byte {
	t.Helper()
	fold := state.NewFold()
	var steps []step
	now := T0
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		now += 1000
		st := step{line: i + 1, hook: hookName(line)}
		m, err := mapf([]byte(line), fold.Session)
		if err != nil {
			st.err = err.Error()
			steps = append(steps, st)
			continue
		}
		for _, ev := range append(append([]state.Event(nil), m.Open...), m.Events...) {
			if err := ev.Validate(); err != nil {
				t.Errorf("line %d (%s): an event does not validate: %v", st.line, st.hook, err)
			}
		}
		batch := m.Batch(fold.Has)
		state.Stamp(batch, time.UnixMilli(now))
		if _, err := fold.Apply(batch...); err != nil {
			t.Fatalf("line %d (%s): the fold refused the batch: %v", st.line, st.hook, err)
		}
		st.applied, st.transcript, st.window, st.why = batch, m.Transcript, m.Window, m.Why
		steps = append(steps, st)
	}
	doc := fold.Snapshot(state.SnapshotInput{Now: time.UnixMilli(now + 1), Settings: settings.Defaults})
	return render(t, steps, doc)
}

// hookName is the payload's hook_event_name (or a Codex notification's
// type), for the reader of the golden.
func hookName(line string) string {
	var p struct {
		Hook string `json:"hook_event_name"`
		Type string `json:"type"`
	}
	json.Unmarshal([]byte(line), &p)
	return p.Hook + p.Type
}

// render writes the golden: one step per payload with each applied event on
// its own line, then the summary and the rows as a state.json carries them.
func render(t testing.TB, steps []step, doc state.Document) []byte {
	t.Helper()
	compact := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"steps\": [")
	var lastTx hookjson.Transcript
	for i, st := range steps {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    {\"line\": %d, \"hook\": %s", st.line, compact(st.hook))
		if st.err != "" {
			fmt.Fprintf(&b, ", \"error\": %s}", compact(st.err))
			continue
		}
		// A transcript is shown when it changes, not on every step.
		if st.transcript != (hookjson.Transcript{}) && st.transcript != lastTx {
			lastTx = st.transcript
			tx := map[string]any{"path": st.transcript.Path, "session": st.transcript.Session}
			if st.transcript.Sidechain {
				tx["sidechain"] = true
			}
			fmt.Fprintf(&b, ", \"transcript\": %s", compact(tx))
		}
		if st.window.Size > 0 {
			fmt.Fprintf(&b, ", \"window\": %s", compact(map[string]any{"session": st.window.Session, "size": st.window.Size}))
		}
		if w := st.why; w.Session != "" {
			why := map[string]any{"session": w.Session, "kind": w.Kind, "label": w.Label(), "words": w.Words}
			if w.ResetsMs != 0 {
				why["resetsMs"] = w.ResetsMs
			}
			fmt.Fprintf(&b, ", \"why\": %s", compact(why))
		}
		b.WriteString(", \"applied\": [")
		for j, ev := range st.applied {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n      " + compact(ev))
		}
		if len(st.applied) > 0 {
			b.WriteString("\n    ")
		}
		b.WriteString("]}")
	}
	b.WriteString("\n  ],\n  \"summary\": " + compact(doc.Summary) + ",\n  \"sessions\": ")
	rows, err := json.MarshalIndent(doc.Sessions, "  ", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b.Write(rows)
	b.WriteString("\n}\n")
	if !json.Valid(b.Bytes()) {
		t.Fatalf("the golden rendering is not JSON:\n%s", b.String())
	}
	return b.Bytes()
}
