package mesh

import (
	"encoding/json"
	"math"
	"sync"
	"time"

	"github.com/notch-web/notch-web/host/ledger"
	"github.com/notch-web/notch-web/state"
)

// Each machine publishes its own ledger readings (its agents' plan
// windows) and its own cost and tokens per session and day (no prompt, no
// path) on notch.<machine>.pub.ledger whenever they
// change and again on reconnect; every machine that takes the boards adds
// them to its own ledger, named by the machine that sent them and with the
// sender's clock at sending, so a machine whose clock runs off is
// corrected (host/ledger's Normalize). Readings of one account from two
// machines are one figure there.

func ledgerSubject(machine string) string { return machineSubject(machine, pubSpace+"ledger") }

// ledgerBoard is a Board that keeps a ledger (*host.Board).
type ledgerBoard interface {
	Ledger() *ledger.Ledger
}

// Bounds on a machine's ledger message.
const (
	maxLedgerBytes    = 256 << 10
	maxLedgerReadings = 64
	maxLedgerLines    = 400
	maxLedgerText     = 200
)

// wireLedger is a machine's ledger message: its plan readings, and its
// own cost and tokens per session and day (totals only: no prompt, no
// path, no title).
type wireLedger struct {
	Sent     time.Time        `json:"sent"`
	Readings []ledger.Reading `json:"readings"`
	Lines    []wireLine       `json:"lines,omitempty"`
}

// wireLine is one session-day's totals on the wire.
type wireLine struct {
	Day     string  `json:"day"`
	Agent   string  `json:"agent"`
	Session string  `json:"session,omitempty"`
	In      int64   `json:"in,omitempty"`
	Out     int64   `json:"out,omitempty"`
	Read    int64   `json:"cacheRead,omitempty"`
	Write   int64   `json:"cacheWrite,omitempty"`
	Tokens  bool    `json:"hasTokens,omitempty"`
	USD     float64 `json:"usd,omitempty"`
	Cost    bool    `json:"hasCost,omitempty"`
}

// ledgerLink is the node's own ledger, where other machines' readings go.
type ledgerLink struct {
	mu sync.Mutex
	l  *ledger.Ledger
}

func (k *ledgerLink) set(l *ledger.Ledger) {
	k.mu.Lock()
	k.l = l
	k.mu.Unlock()
}

func (k *ledgerLink) get() *ledger.Ledger {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.l
}

// encodeLedger is l's own readings as a message sent at now; the readings
// alone (without the send time) say whether they changed.
func encodeLedger(l *ledger.Ledger, now time.Time) (msg, key []byte) {
	rs := l.Readings()
	if len(rs) > maxLedgerReadings {
		rs = rs[:maxLedgerReadings]
	}
	for i := range rs {
		rs[i].Machine = "" // the subject names it
	}
	var ls []wireLine
	for _, x := range l.OwnLines(maxLedgerLines) {
		ls = append(ls, wireLine{Day: x.Day, Agent: x.Agent, Session: x.Session, In: x.InputTokens, Out: x.OutputTokens,
			Read: x.CacheReadTokens, Write: x.CacheWriteTokens, Tokens: x.HasTokens, USD: x.CostUSD, Cost: x.HasCost})
	}
	key, _ = json.Marshal(wireLedger{Readings: rs, Lines: ls})
	msg, _ = json.Marshal(wireLedger{Sent: now, Readings: rs, Lines: ls})
	return msg, key
}

// decodeLines reads a message's lines: each a real day, plain words, no
// negative or absurd count; the rest are left out.
func decodeLines(ws []wireLine) []ledger.Line {
	out := make([]ledger.Line, 0, len(ws))
	const most = 1 << 50
	for _, w := range ws {
		if _, err := time.Parse(time.DateOnly, w.Day); err != nil || len(w.Day) != len(time.DateOnly) || !plainText(w.Agent) ||
			(w.Session != "" && !plainText(w.Session)) {
			continue
		}
		if w.In < 0 || w.Out < 0 || w.Read < 0 || w.Write < 0 || w.In > most || w.Out > most || w.Read > most || w.Write > most ||
			math.IsNaN(w.USD) || w.USD < 0 || w.USD > 1e12 || (!w.Cost && w.USD != 0) {
			continue
		}
		out = append(out, ledger.Line{Day: w.Day, Agent: w.Agent, Session: w.Session, Totals: ledger.Totals{
			InputTokens: w.In, OutputTokens: w.Out, CacheReadTokens: w.Read, CacheWriteTokens: w.Write,
			HasTokens: w.Tokens, CostUSD: w.USD, HasCost: w.Cost}})
	}
	return out
}

// decodeLedger reads a machine's ledger message: bounded, each reading's
// words plain text, named by the machine that sent it, and its lines
// (decodeLines). ok is false for a message that is not one.
func decodeLedger(machine string, data []byte) ([]ledger.Reading, bool) {
	rs, _, ok := decodeLedgerAll(machine, data)
	return rs, ok
}

func decodeLedgerAll(machine string, data []byte) ([]ledger.Reading, []ledger.Line, bool) {
	if len(data) > maxLedgerBytes {
		return nil, nil, false
	}
	var w wireLedger
	if json.Unmarshal(data, &w) != nil || w.Sent.IsZero() || len(w.Readings) > maxLedgerReadings || len(w.Lines) > maxLedgerLines {
		return nil, nil, false
	}
	out := make([]ledger.Reading, 0, len(w.Readings))
	for _, r := range w.Readings {
		if !plainText(r.Agent) || !plainText(r.Window) || (r.Account != "" && !plainText(r.Account)) {
			continue
		}
		r.Machine, r.Sent = machine, w.Sent
		out = append(out, r)
	}
	return out, decodeLines(w.Lines), true
}

// plainText is a short, non-empty, one-line text with no control or bidi
// character.
func plainText(s string) bool {
	return s != "" && len(s) <= maxLedgerText && state.ValidSessionID(s)
}

// onLedger takes another machine's ledger readings into this one's.
func (n *Node) onLedger(machine string, data []byte) {
	if machine == n.name {
		return // its own, already in
	}
	l := n.led.get()
	if l == nil {
		return
	}
	rs, ls, ok := decodeLedgerAll(machine, data)
	if !ok {
		return
	}
	now := time.Now()
	for _, r := range rs {
		l.Add(r, now)
	}
	// Its cost and tokens: its latest lines replace its last, so a
	// message taken again (a reconnect) counts nothing twice.
	l.SetLines(machine, ls)
}
