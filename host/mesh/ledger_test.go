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
	f.Add([]byte(`{"sent":"2026-12-07T12:00:00Z","readings":[],"lines":[{"day":"2026-12-07","agent":"codex","session":"s","in":10,"out":2,"hasTokens":true,"usd":0.5,"hasCost":true}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, ls, _ := decodeLedgerAll("m", data)
		for _, r := range rs {
			if r.Machine != "m" || !plainText(r.Agent) || !plainText(r.Window) {
				t.Fatalf("took %+v", r)
			}
		}
		for _, l := range ls {
			if !plainText(l.Agent) || l.InputTokens < 0 || l.CostUSD < 0 || len(l.Day) != 10 || (l.Session != "" && !plainText(l.Session)) {
				t.Fatalf("took %+v", l)
			}
		}
	})
}

// A machine's message carries its own cost and tokens per session and
// day; the taker shows them named by the sender, and a message taken again
// (a reconnect, a repeat) or a newer one replaces the last: nothing is
// counted twice. Lines the taker got from a third machine are not sent on.
func TestLedgerLinesCountedOnce(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	src := ledger.New(ledger.Options{Loc: time.UTC})
	src.AddTotal(ledger.Usage{Agent: "claude-code", Session: "s1", Source: "statusline", At: now, CostUSD: 0.42, HasCost: true})
	src.AddUsage(ledger.Usage{Agent: "codex", Session: "c1", Source: "otel", At: now, InputTokens: 1200, OutputTokens: 30})
	src.SetLines("third", []ledger.Line{{Day: "2026-12-07", Agent: "gemini", Session: "g", Totals: ledger.Totals{InputTokens: 5, HasTokens: true}}})
	msg, _ := encodeLedger(src, now)
	if strings.Contains(string(msg), "gemini") || strings.Contains(string(msg), "third") {
		t.Fatalf("a third machine's lines were sent on: %s", msg)
	}
	hub := ledger.New(ledger.Options{Machine: "hub", Loc: time.UTC})
	sum := func() (cost float64, tokens int64, machines map[string]bool) {
		machines = map[string]bool{}
		for _, l := range hub.Snapshot(now).Lines {
			cost += l.CostUSD
			tokens += l.Tokens()
			machines[l.Machine] = true
		}
		return
	}
	take := func(data []byte) {
		rs, ls, ok := decodeLedgerAll("laptop", data)
		if !ok {
			t.Fatalf("refused %s", data)
		}
		for _, r := range rs {
			hub.Add(r, now)
		}
		hub.SetLines("laptop", ls)
	}
	take(msg)
	take(msg) // again: a reconnect
	if c, tk, m := sum(); c != 0.42 || tk != 1230 || len(m) != 1 || !m["laptop"] {
		t.Fatalf("hub: $%v, %d tokens, machines %v; want $0.42, 1230, laptop's", c, tk, m)
	}
	src.AddTotal(ledger.Usage{Agent: "claude-code", Session: "s1", Source: "statusline", At: now.Add(time.Minute), CostUSD: 0.5, HasCost: true})
	msg2, _ := encodeLedger(src, now.Add(time.Minute))
	take(msg2)
	if c, tk, _ := sum(); c != 0.5 || tk != 1230 {
		t.Fatalf("hub after the newer message: $%v, %d tokens; want $0.50, 1230", c, tk)
	}
	// The hub's own lines and another machine's lines add up side by side.
	hub.AddUsage(ledger.Usage{Agent: "codex", Session: "h1", Source: "otel", At: now, InputTokens: 70})
	if _, tk, m := sum(); tk != 1300 || !m["hub"] || !m["laptop"] {
		t.Fatalf("hub with its own: %d tokens, machines %v", tk, m)
	}
	hub.Forget("laptop")
	if _, tk, _ := sum(); tk != 70 {
		t.Fatalf("a forgotten machine's lines stay: %d tokens", tk)
	}
}

// Hostile lines are left out, the message's readings still taken.
func TestDecodeLedgerLinesRefused(t *testing.T) {
	in := `{"sent":"2026-12-07T12:00:00Z","readings":[],"lines":[
		{"day":"2026-12-07","agent":"codex","session":"ok","in":10,"hasTokens":true},
		{"day":"yesterday","agent":"codex","in":10},
		{"day":"2026-12-07","agent":"codex\u202e","in":10},
		{"day":"2026-12-07","agent":"codex","session":"<b>\n","in":10},
		{"day":"2026-12-07","agent":"codex","in":-5},
		{"day":"2026-12-07","agent":"codex","usd":-1,"hasCost":true},
		{"day":"2026-12-07","agent":"codex","usd":3},
		{"day":"2026-12-07","agent":"codex","in":"many"}]}`
	if _, ls, ok := decodeLedgerAll("m", []byte(in)); ok {
		t.Fatalf("a message with a wrongly typed line was taken: %+v", ls)
	}
	in = strings.Replace(in, `,
		{"day":"2026-12-07","agent":"codex","in":"many"}`, "", 1)
	_, ls, ok := decodeLedgerAll("m", []byte(in))
	if !ok || len(ls) != 1 || ls[0].Session != "ok" || ls[0].InputTokens != 10 {
		t.Fatalf("lines taken: %+v %v, want the one plain line", ls, ok)
	}
	many := `{"sent":"2026-12-07T12:00:00Z","readings":[],"lines":[` + strings.Repeat(`{"day":"2026-12-07","agent":"codex"},`, maxLedgerLines) + `{"day":"2026-12-07","agent":"codex"}]}`
	if _, _, ok := decodeLedgerAll("m", []byte(many)); ok {
		t.Error("more lines than the bound were taken")
	}
}
