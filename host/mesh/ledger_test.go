package mesh

import (
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/ledger"
)

// A machine's ledger message carries its readings (no machine: the subject
// names it) and its clock at sending; the taker names them by the sender
// and corrects the sender's clock.
func TestLedgerRoundTrip(t *testing.T) {
	here := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	fast := here.Add(10 * time.Minute) // the sender's clock runs 10 minutes ahead
	src := ledger.New(ledger.Options{Machine: "laptop"})
	src.Add(ledger.Reading{Agent: "codex", Account: "acct", Window: "primary", Minutes: 300, UsedPct: 42, AsOf: fast, ResetsAt: here.Add(time.Hour)}, fast)
	msg, key := encodeLedger(src, fast)
	if strings.Contains(string(key), "laptop") {
		t.Errorf("the readings name their machine: %s", key)
	}
	rs, ok := decodeLedger("laptop", msg)
	if !ok || len(rs) != 1 || rs[0].Machine != "laptop" || !rs[0].Sent.Equal(fast) {
		t.Fatalf("decoded %+v, %v", rs, ok)
	}
	hub := ledger.New(ledger.Options{Machine: "hub"})
	hub.Add(rs[0], here)
	f := hub.Snapshot(here).Figures
	if len(f) != 1 || f[0].Machine != "laptop" || !f[0].AsOf.Equal(here) || f[0].State != ledger.Fresh {
		t.Errorf("the hub's figure %+v, want laptop's, as of the hub's now", f)
	}
	// Another machine on the same account, a minute later, is the same
	// figure: the freshest wins.
	hub.Add(ledger.Reading{Agent: "codex", Account: "acct", Window: "primary", UsedPct: 50, AsOf: here.Add(time.Minute), Machine: "desk"}, here.Add(time.Minute))
	if f := hub.Snapshot(here.Add(time.Minute)).Figures; len(f) != 1 || f[0].Machine != "desk" || f[0].UsedPct != 50 {
		t.Errorf("two machines on one account: %+v, want desk's one figure", f)
	}
}

func TestDecodeLedgerRefuses(t *testing.T) {
	for _, c := range []struct{ name, in string }{
		{"not JSON", `{`},
		{"no send time", `{"readings":[]}`},
		{"huge", `{"sent":"2026-12-07T12:00:00Z","readings":[` + strings.Repeat(`{"agent":"codex"},`, 5000) + `{}]}`},
		{"wrong types", `{"sent":"2026-12-07T12:00:00Z","readings":[{"agent":1}]}`},
	} {
		if rs, ok := decodeLedger("m", []byte(c.in)); ok && len(rs) > 0 {
			t.Errorf("%s: took %+v", c.name, rs)
		}
	}
	rs, ok := decodeLedger("m", []byte(`{"sent":"2026-12-07T12:00:00Z","readings":[{"agent":"codex\u202e","window":"primary","usedPct":1,"asOf":"2026-12-07T12:00:00Z"},{"agent":"codex","window":"primary","usedPct":1,"asOf":"2026-12-07T12:00:00Z"}]}`))
	if !ok || len(rs) != 1 {
		t.Errorf("a bidi character in an agent's name was taken: %+v", rs)
	}
}

// FuzzDecodeLedger: another machine's ledger message is outside input.
// Never a panic; what is taken is bounded plain text, named by the sender.
func FuzzDecodeLedger(f *testing.F) {
	f.Add([]byte(`{"sent":"2026-12-07T12:00:00Z","readings":[{"agent":"codex","window":"primary","minutes":300,"usedPct":42,"resetsAt":"2026-12-07T15:00:00Z","asOf":"2026-12-07T12:00:00Z"}]}`)) // as sent
	f.Add([]byte(`{"sent":"2026-12-07T12:00:00Z","readings":[{"agent":"a\u0000","window":"\n","usedPct":1e309}]}`))                                                                               // hostile
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, _ := decodeLedger("m", data)
		for _, r := range rs {
			if r.Machine != "m" || !plainText(r.Agent) || !plainText(r.Window) {
				t.Fatalf("took %+v", r)
			}
		}
	})
}
