package host

import (
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"

	"github.com/notch-web/notch-web/state"
)

// Recorder keeps the lasting history (host/store): the board hands it every
// event its fold applied, every answer to a card, and the costs the agents
// report. Its methods are called with the board's lock held and must never
// block: a recorder queues and writes elsewhere, and drops (and says so)
// when it cannot keep up — the board never waits on the history.
type Recorder interface {
	RecordEvents(evs []RecordedEvent)
	RecordAnswer(a RecordedAnswer)
	RecordCost(session string, usd float64, at time.Time)
	RecordWhy(w RecordedWhy)
}

// TokensRecorder is a Recorder that also keeps the tokens a session used
// (host/store): each increment the ledger counted, once.
type TokensRecorder interface {
	RecordTokens(session string, tokens int64, at time.Time)
}

// WhyEvent is the lasting history's own event type for a RecordedWhy
// (host/store keeps it among the events and feeds it to a hub): never a
// session event of the vocabulary.
const WhyEvent = "why"

// RecordedWhy is why a row's turn stopped (why.go), when the board
// learned it.
type RecordedWhy struct {
	Session string
	hookjson.Why
	At time.Time
}

// RecordedEvent is one applied event with what the host knows of its row
// beside it: the agent that sent it ("" when no hook said).
type RecordedEvent struct {
	state.Event
	Agent string
}

// RecordedAnswer is a card's end: who answered it (ByBoard, ByTerminal,
// ByPush, ByHold …), how, and when it was asked and answered. Device is
// where a board or push answer was given, as a person reads it: the paired
// device's name when it answered (so a later rename or revoke does not
// rewrite the past), a push channel's ("ntfy NAME") when no device is
// known, "" for this computer's own browser and for every other by.
type RecordedAnswer struct {
	Session, Call, Agent, Tool string
	By, Device, Outcome        string
	Asked, Answered            time.Time
	// OperationID is the answering request's operation id ("" for an
	// answer no request gave: the terminal, a hold's end).
	OperationID string
}

// SetRecorder gives the board its history recorder; nil keeps none. Set it
// before the host runs.
func (b *Board) SetRecorder(r Recorder) {
	b.mu.Lock()
	b.rec = r
	b.mu.Unlock()
}

// recordToLocked hands applied events to the recorder; the caller holds
// b.mu.
func (b *Board) recordToLocked(evs []state.Event) {
	if b.rec == nil || len(evs) == 0 {
		return
	}
	out := make([]RecordedEvent, len(evs))
	for i, ev := range evs {
		a := b.facts[ev.Session].agent
		if a == "" {
			a = b.hookAgent // a session's first hook: its facts come after
		}
		out[i] = RecordedEvent{Event: ev, Agent: a}
	}
	b.rec.RecordEvents(out)
}

// recorder is the board's recorder, nil for none.
func (b *Board) recorder() Recorder {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rec
}
