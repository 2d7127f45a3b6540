package golden

import (
	"errors"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

// CheckMap is the property every adapter's FuzzMap checks on one body: Map
// never panics; a refusal wraps hookjson.ErrPayload and carries nothing;
// every event validates; and the batch applies to the fold that was looked
// up, three times over: with no row held, with the rows the first round
// opened held and (when pending) an approval waiting on each of them, and
// once more after that.
func CheckMap(t *testing.T, mapf MapFunc, body []byte, pending bool) {
	fold := state.NewFold()
	now := T0
	for round := range 3 {
		m, err := mapf(body, fold.Session)
		if err != nil {
			if !errors.Is(err, hookjson.ErrPayload) {
				t.Fatalf("a refusal that is not ErrPayload: %v", err)
			}
			if len(m.Open)+len(m.Events) > 0 || m.Transcript != (hookjson.Transcript{}) || m.Window != (hookjson.Window{}) || m.Why != (hookjson.RowWhy{}) {
				t.Fatal("a refusal carried a mapping")
			}
			return
		}
		if len(m.Events) == 0 && len(m.Open) > 0 {
			t.Fatal("a mapping without events opens rows")
		}
		if w := m.Window; w.Size < 0 || w.Size > state.MaxInteger || (w.Size > 0) != (w.Session != "") {
			t.Fatalf("a window out of bounds or of no row: %+v", w)
		}
		if w := m.Why; w.Session != "" && (w.Why.Clean() != w.Why || w.IsZero()) || w.Session == "" && !w.IsZero() {
			t.Fatalf("a why not clean, or of no row: %+v", w)
		}
		for _, ev := range append(append([]state.Event(nil), m.Open...), m.Events...) {
			if err := ev.Validate(); err != nil {
				t.Fatalf("round %d: an event does not validate: %v (%+v)", round, err, ev)
			}
			if ev.At != 0 {
				t.Fatalf("an adapter stamped at %d: the receiver stamps", ev.At)
			}
		}
		now += 1000
		batch := m.Batch(fold.Has)
		state.Stamp(batch, time.UnixMilli(now))
		if _, err := fold.Apply(batch...); err != nil {
			t.Fatalf("round %d: the fold refused the batch: %v", round, err)
		}
		if s := m.Transcript.Session; s != "" && !fold.Has(s) {
			t.Fatalf("the transcript names row %q, which is not held", s)
		}
		if round == 0 && pending {
			now += 1000
			for _, ev := range batch {
				if fold.Has(ev.Session) {
					ask := state.Event{Type: state.TypeApprovalRequested, Session: ev.Session, Tool: "Bash", At: now}
					if _, err := fold.Apply(ask); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}
