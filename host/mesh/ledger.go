package mesh

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/notch-web/notch-web/host/ledger"
	"github.com/notch-web/notch-web/state"
)

// Each machine publishes its own ledger readings (its agents' plan
// windows: no prompt, no path) on notch.<machine>.pub.ledger whenever they
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
	maxLedgerBytes    = 64 << 10
	maxLedgerReadings = 64
	maxLedgerText     = 200
)

// wireLedger is a machine's ledger message.
type wireLedger struct {
	Sent     time.Time        `json:"sent"`
	Readings []ledger.Reading `json:"readings"`
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
	key, _ = json.Marshal(rs)
	msg, _ = json.Marshal(wireLedger{Sent: now, Readings: rs})
	return msg, key
}

// decodeLedger reads a machine's ledger message: bounded, each reading's
// words plain text, named by the machine that sent it. ok is false for a
// message that is not one.
func decodeLedger(machine string, data []byte) ([]ledger.Reading, bool) {
	if len(data) > maxLedgerBytes {
		return nil, false
	}
	var w wireLedger
	if json.Unmarshal(data, &w) != nil || w.Sent.IsZero() || len(w.Readings) > maxLedgerReadings {
		return nil, false
	}
	out := make([]ledger.Reading, 0, len(w.Readings))
	for _, r := range w.Readings {
		if !plainText(r.Agent) || !plainText(r.Window) || (r.Account != "" && !plainText(r.Account)) {
			continue
		}
		r.Machine, r.Sent = machine, w.Sent
		out = append(out, r)
	}
	return out, true
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
	rs, ok := decodeLedger(machine, data)
	if !ok {
		return
	}
	now := time.Now()
	for _, r := range rs {
		l.Add(r, now)
	}
}
