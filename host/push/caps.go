package push

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/notch-web/notch-web/host"
)

// A push's buttons answer a permission card without the board: each carries
// a capability — a 256-bit random token bound to that card, that decision
// and the recipient it was minted for (and so the paired device behind it).
// The first answer spends the pair (Allow once and Deny of one recipient go
// together); a replay is refused; a press the host refuses (the card was
// answered in the terminal, its agent ended, its row was closed) spends
// nothing, and the host says why again at the next press until the
// capability is forgotten.

// Errors Use returns; package web maps them to statuses.
var (
	// ErrCapUnknown: no such capability, it expired, or it was used (403).
	ErrCapUnknown = errors.New("this action is not known here, has expired, or was used already")
	// ErrCapDevice: the capability was minted for another device (403).
	ErrCapDevice = errors.New("this action belongs to another device")
	// ErrCapRole: the device it was minted for, or the one pressing it,
	// may not answer now (its role was lowered) (403).
	ErrCapRole = errors.New("this device's role does not allow answering approvals, questions and plans")
)

// Bounds on the capabilities kept.
const (
	capBytes  = 32
	capMaxAge = 15 * time.Minute // the longest a card is held, and then some
	capKept   = 10 * time.Minute // an answered card's capability still says so
	maxCaps   = 4096
)

type capEntry struct {
	req       host.AnswerRequest
	recipient string
	device    string
	group     *capGroup
	expires   time.Time
}

type capGroup struct {
	used     bool
	answered bool // the card was answered (anywhere) or went
}

// Caps is the registry of capabilities. The zero value is not ready: use
// newCaps.
type Caps struct {
	now func() time.Time

	mu     sync.Mutex
	byCap  map[string]*capEntry
	byCard map[string][]string // session "\x00" call → caps
	order  []string            // mint order, for the bound
}

func newCaps(now func() time.Time) *Caps {
	return &Caps{now: now, byCap: map[string]*capEntry{}, byCard: map[string][]string{}}
}

func cardKey(session, call string) string { return session + "\x00" + call }

func token() string {
	b := make([]byte, capBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// mint makes the Allow once and Deny capabilities of card c for one
// recipient, as buttons posting to actURL.
func (k *Caps) mint(c host.Card, recipient, device, actURL string) []Action {
	now := k.now()
	g := &capGroup{}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sweep(now)
	out := make([]Action, 0, 2)
	for _, d := range []struct{ id, label, decision string }{
		{"allow", "Allow once", host.DecideAllow},
		{"deny", "Deny", host.DecideDeny},
	} {
		// A question is answered on the board (its answers need the
		// card), so its push offers only Decline; a plan's buttons are
		// Approve and Keep planning.
		switch {
		case c.Kind == host.KindQuestion && d.decision == host.DecideAllow:
			continue
		case c.Kind == host.KindQuestion:
			d.label = "Decline"
		case c.Kind == host.KindPlan && d.decision == host.DecideAllow:
			d.label = "Approve"
		case c.Kind == host.KindPlan:
			d.label = "Keep planning"
		}
		t := token()
		k.byCap[t] = &capEntry{
			req:       host.AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: d.decision, Device: answeredThrough(recipient)},
			recipient: recipient, device: device, group: g, expires: now.Add(capMaxAge),
		}
		key := cardKey(c.Session, c.Call)
		k.byCard[key] = append(k.byCard[key], t)
		k.order = append(k.order, t)
		out = append(out, Action{ID: d.id, Label: d.label, URL: actURL, Cap: t})
	}
	return out
}

// answeredThrough is the channel a recipient names, as an answer through it is
// kept when no paired device is known: "ntfy NAME" for "ntfy:NAME",
// "webhook NAME" for "webhook:NAME", "" for a Web Push subscription (its
// device, when it has one, is the request's).
func answeredThrough(recipient string) string {
	for _, kind := range []string{"ntfy", "webhook"} {
		if name, ok := strings.CutPrefix(recipient, kind+":"); ok {
			return kind + " " + name
		}
	}
	return ""
}

// sweep drops expired capabilities, and the oldest beyond the bound.
// Called with k.mu held.
func (k *Caps) sweep(now time.Time) {
	keep := k.order[:0]
	for i, t := range k.order {
		e, ok := k.byCap[t]
		if !ok {
			continue
		}
		if now.After(e.expires) || len(k.order)-i > maxCaps {
			k.drop(t, e)
			continue
		}
		keep = append(keep, t)
	}
	k.order = keep
}

func (k *Caps) drop(t string, e *capEntry) {
	delete(k.byCap, t)
	key := cardKey(e.req.Session, e.req.Call)
	rest := k.byCard[key][:0]
	for _, x := range k.byCard[key] {
		if x != t {
			rest = append(rest, x)
		}
	}
	if len(rest) == 0 {
		delete(k.byCard, key)
	} else {
		k.byCard[key] = rest
	}
}

// settled marks card (session, call) answered: its capabilities now say so
// (409) until they are forgotten a while later.
func (k *Caps) settled(session, call string) {
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, t := range k.byCard[cardKey(session, call)] {
		if e := k.byCap[t]; e != nil {
			e.group.answered = true
			if end := now.Add(capKept); end.Before(e.expires) {
				e.expires = end
			}
		}
	}
}

// use spends capability t for a request from device (the paired device its
// cookie names, "" for none) — local is a request from this machine, inside
// the trust boundary. may says whether a paired device may answer now:
// neither the device the capability was minted for nor the one pressing
// it may be one that may not (ErrCapRole, nothing spent). It returns the answer to give and whether the card
// was seen answered already (the host says how: 409 or 410), or why not.
// A press the host then refuses is given back (refused). While one press
// is with the host, another of the pair is refused as used.
func (k *Caps) use(t, device string, local bool, may func(string) bool) (req host.AnswerRequest, answered bool, err error) {
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	e, ok := k.byCap[t]
	if !ok || now.After(e.expires) || e.group.used {
		return host.AnswerRequest{}, false, ErrCapUnknown
	}
	if e.device != "" && !local && device != e.device {
		return host.AnswerRequest{}, false, ErrCapDevice
	}
	if e.device != "" && !may(e.device) || device != "" && !local && !may(device) {
		return host.AnswerRequest{}, false, ErrCapRole
	}
	e.group.used = true
	return e.req, e.group.answered, nil
}

// refused gives back the pair of capability t, spent by a press the host
// refused: nothing was answered.
func (k *Caps) refused(t string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if e := k.byCap[t]; e != nil {
		e.group.used = false
	}
}

// size is how many capabilities are kept (tests).
func (k *Caps) size() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.byCap)
}
