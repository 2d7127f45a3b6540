//go:build notch_hub

package mesh

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// A hub's row ids keep the contract's bound (1–200 bytes) whatever the
// machine's name and the session's id, and a long one still reaches its
// row: Has finds it, its ✕ goes to the machine under the machine's own id.
func TestRowIDsKeepTheirBound(t *testing.T) {
	name := strings.Repeat("m", MaxName)
	cases := []struct {
		sid     string
		aliased bool
	}{
		{"s1", false},
		{strings.Repeat("x", state.MaxSessionID-MaxName-1), false}, // exactly 200 bytes
		{strings.Repeat("x", state.MaxSessionID-MaxName), true},    // 201: aliased
		{strings.Repeat("y", state.MaxSessionID), true},
	}
	for _, tc := range cases {
		id := rowID(name, tc.sid)
		if len(id) > state.MaxSessionID || !state.ValidSessionID(id) {
			t.Errorf("rowID of a %d-byte session: %d bytes", len(tc.sid), len(id))
		}
		if aliased := !strings.HasSuffix(id, "/"+tc.sid); aliased != tc.aliased {
			t.Errorf("rowID of a %d-byte session aliased: %v, want %v", len(tc.sid), aliased, tc.aliased)
		}
	}

	long := strings.Repeat("z", state.MaxSessionID)
	r := newRemote("hub")
	var fins []string
	r.sendFin = func(machine string, ids []string) { fins = append(fins, machine+":"+strings.Join(ids, ",")) }
	r.setBoard(name, mustEncode(t, state.Document{Schema: 4, WallMs: time.Now().UnixMilli(), Sessions: []state.Session{
		{ID: long, Status: state.StatusWorking, Identity: "teal"},
		{ID: "short", Status: state.StatusWorking, Identity: "violet"},
	}}), true)
	d := r.Compose(state.Document{Schema: 4, Sessions: []state.Session{}}, time.Now())
	var ids []string
	for _, s := range d.Sessions {
		if len(s.ID) > state.MaxSessionID {
			t.Errorf("the composed board has a %d-byte id", len(s.ID))
		}
		ids = append(ids, s.ID)
		if !r.Has(s.ID) {
			t.Errorf("Has(%q) = false for a row on the board", s.ID)
		}
	}
	if len(ids) != 2 {
		t.Fatalf("composed %d rows, want 2", len(ids))
	}
	r.Retire(ids...)
	slices.Sort(fins)
	if want := name + ":" + long; len(fins) != 1 || !strings.Contains(fins[0], long) || !strings.Contains(fins[0], "short") || !strings.HasPrefix(fins[0], name+":") {
		t.Errorf("close-outs sent %q, want both under the machine's own ids (%s…)", fins, want[:80])
	}
}
