package push

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
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
	used bool
	// settled is what the host's answer to a press would be once the card
	// was answered (anywhere) or went: host.ErrAnswered (409), or
	// host.ErrAgentGone / ErrRowClosed (410); nil while it waits.
	settled error
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

// MaxOptionActions is how many of a question's options its push offers as
// buttons: Web Push shows at most two actions on every browser that shows
// any (Notification.maxActions), and a click on the message itself opens
// the board, where every option is.
const MaxOptionActions = 2

// maxOptionLabel bounds an option's button label (sw.js cuts at 40 too).
const maxOptionLabel = 40

// mint makes the capabilities of o's card for one recipient, as buttons
// posting to actURL: Allow once and Deny of a permission; Approve and Keep
// planning of a plan; a question's first options (o.Options, at most
// MaxOptionActions), each answering the one question with that option —
// or, for a question its push cannot answer in one press (several
// questions, a multi-select, no options), Decline. A recipient's buttons of
// one card are one group: the first press spends them all.
func (k *Caps) mint(o Offer, recipient, device, actURL string) []Action {
	type button struct {
		id, label, decision string
		answers             *[]hookjson.Choice
	}
	var buttons []button
	switch {
	case o.Kind == host.KindQuestion && len(o.Options) > 0:
		for i, label := range o.Options[:min(len(o.Options), MaxOptionActions)] {
			buttons = append(buttons, button{"option-" + strconv.Itoa(i), cutLine(label, maxOptionLabel), host.DecideAnswer,
				&[]hookjson.Choice{{Options: []int{i}}}})
		}
	case o.Kind == host.KindQuestion:
		// Its answers need the board's card; an Allow would answer nothing.
		buttons = []button{{"deny", "Decline", host.DecideDeny, nil}}
	case o.Kind == host.KindPlan:
		buttons = []button{{"allow", "Approve", host.DecideAllow, nil}, {"deny", "Keep planning", host.DecideDeny, nil}}
	default:
		buttons = []button{{"allow", "Allow once", host.DecideAllow, nil}, {"deny", "Deny", host.DecideDeny, nil}}
	}
	now := k.now()
	g := &capGroup{}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sweep(now)
	out := make([]Action, 0, len(buttons))
	for _, b := range buttons {
		t := token()
		k.byCap[t] = &capEntry{
			req: host.AnswerRequest{Session: o.Session, Call: o.Call, Nonce: o.Nonce, Decision: b.decision, Answers: b.answers,
				Device: answeredThrough(recipient)},
			recipient: recipient, device: device, group: g, expires: now.Add(capMaxAge),
		}
		key := cardKey(o.Session, o.Call)
		k.byCard[key] = append(k.byCard[key], t)
		k.order = append(k.order, t)
		out = append(out, Action{ID: b.id, Label: b.label, URL: actURL, Cap: t})
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

// settled marks card (session, call) answered or gone, as err says (an
// ErrAgentGone: gone, 410; anything else: answered, 409): its capabilities now say so until they are forgotten a
// while later, after the host has forgotten the card.
func (k *Caps) settled(session, call string, err error) {
	if !errors.Is(err, host.ErrAgentGone) {
		err = host.ErrAnswered // answered, or not known how: 409 as before
	}
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, t := range k.byCard[cardKey(session, call)] {
		if e := k.byCap[t]; e != nil {
			if e.group.settled == nil {
				e.group.settled = err // the first word on it holds
			}
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
// it may be one that may not (ErrCapRole, nothing spent). It returns the answer to give and how the card
// was seen settled already (nil: not; the host says how when it still
// knows the card: 409 or 410), or why not.
// A press the host then refuses is given back (refused). While one press
// is with the host, another of the pair is refused as used.
func (k *Caps) use(t, device string, local bool, may func(string) bool) (req host.AnswerRequest, seen error, err error) {
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	e, ok := k.byCap[t]
	if !ok || now.After(e.expires) || e.group.used {
		return host.AnswerRequest{}, nil, ErrCapUnknown
	}
	if e.device != "" && !local && device != e.device {
		return host.AnswerRequest{}, nil, ErrCapDevice
	}
	if e.device != "" && !may(e.device) || device != "" && !local && !may(device) {
		return host.AnswerRequest{}, nil, ErrCapRole
	}
	e.group.used = true
	return e.req, e.group.settled, nil
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
