package mesh

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/changes"
	"github.com/notch-web/notch-web/host/launch"
	"github.com/notch-web/notch-web/state"
)

// Machine is one machine as the hub's pane lists it.
type Machine struct {
	Name     string
	Present  bool  // its presence key is live
	LastSeen int64 // ms of its last presence (0: never seen)
	Sessions int   // rows of its latest board
	Paired   bool  // paired with this hub (false under --nats, or a board left by a revoked machine)
}

// remote is the other machines' boards as this board shows them: the
// latest of each from the boards bucket, and whether it is present from the
// presence bucket. It is host.Remote.
type remote struct {
	self    string // this machine's name: the label of its own rows
	sendFin func(machine string, ids []string)
	sendAns func(machine string, a host.AnswerRequest) (host.Card, error)
	// sendSteer sends a Reply or Stop to a machine (steer.go).
	sendSteer func(ctx context.Context, machine string, s host.SteerRequest) error
	// sendChanges asks a machine for its row's Changes (changes.go).
	sendChanges func(ctx context.Context, machine, session string) (changes.Result, error)
	// sendLaunch and sendLaunchOpts ask a machine to start a session, and
	// what its launch file allows (launch.go).
	sendLaunch     func(ctx context.Context, machine string, r host.LaunchRequest) (launch.Result, error)
	sendLaunchOpts func(ctx context.Context, machine string) (host.LaunchOptions, error)
	known          func(name string) bool // a name paired here, revoked or not
	// allowed says whose boards, cards and presence are taken (on the hub:
	// machines paired now; nil under --nats: every one).
	allowed func(name string) bool
	// store keeps a machine's board as taken, for the hub's next start
	// (nil: the machines store their own, under --nats).
	store func(name string, data []byte)

	mu       sync.Mutex
	machines map[string]*remoteMachine
	changed  func()
}

type remoteMachine struct {
	doc      *state.Document
	present  bool
	lastSeen int64
	cards    []host.Card             // its approval cards (approve.go)
	steer    map[string]bool         // its rows that take Reply and Stop (steer.go)
	agents   map[string]string       // which agent each of its asking rows is
	whys     map[string]hookjson.Why // why its rows stopped (host/why.go)
	// live: a board came from the machine since this viewer started, so
	// no stored one replaces it. Its boards are taken in the order they
	// arrive (one subscription, in order): never by the wallMs the
	// machine stamps, which its clock can put anywhere.
	live bool
	// skew is how far the machine's clock was from this one's when its
	// last live board came (0 within maxSkew); the board says so.
	skew time.Duration
	// pending is a board taken but not yet stored (store), storedAt when
	// the last was.
	pending  []byte
	storedAt time.Time
}

// maxSkew is how far a machine's clock may be off before its rows say so.
const maxSkew = 10 * time.Second

func newRemote(self string) *remote {
	return &remote{self: self, machines: map[string]*remoteMachine{}, changed: func() {}}
}

// Attach is host.Remote's.
func (r *remote) Attach(changed func()) {
	r.mu.Lock()
	r.changed = changed
	r.mu.Unlock()
}

func (r *remote) get(name string) *remoteMachine {
	m := r.machines[name]
	if m == nil {
		m = &remoteMachine{}
		r.machines[name] = m
	}
	return m
}

// maxBoard bounds a board's bytes (NATS's own max_payload is 1 MiB).
const maxBoard = 1 << 20

// setBoard records a machine's latest board (nil: deleted). live says it
// came from the machine just now (boardSubject), which is proof of life as
// good as its presence key, so the machine is present from then on (until
// the key expires). Boards are taken as they come; a stored one only until
// the first live one. A name the hub has not paired (revoked) is refused.
func (r *remote) setBoard(name string, data []byte, live bool) {
	var doc *state.Document
	if data != nil {
		if len(data) > maxBoard {
			return
		}
		d, err := state.Decode(data)
		if err != nil {
			return // the last good board stays
		}
		d = state.Sanitize(d)
		doc = &d
	}
	now := time.Now()
	var store []byte
	r.mu.Lock()
	if r.allowed != nil && !r.allowed(name) {
		r.mu.Unlock()
		return
	}
	if m := r.machines[name]; !live && m != nil && m.live {
		r.mu.Unlock()
		return // the store's, behind the live one
	}
	if doc == nil {
		if m := r.machines[name]; m != nil {
			m.doc, m.cards, m.agents, m.whys = nil, nil, nil, nil
			if !m.present {
				delete(r.machines, name)
			}
		}
	} else {
		m := r.get(name)
		m.doc = doc
		if live {
			m.live = true
			m.present, m.lastSeen = true, now.UnixMilli()
			m.skew = 0
			if doc.WallMs > 0 {
				m.skew = skewOf(time.UnixMilli(doc.WallMs).Sub(now))
			}
			if r.store != nil {
				if now.Sub(m.storedAt) >= storePace {
					store, m.storedAt, m.pending = data, now, nil
				} else {
					m.pending = data
				}
			}
		}
	}
	changed := r.changed
	r.mu.Unlock()
	if store != nil {
		r.store(name, store)
	}
	changed()
}

// skewOf is a clock's offset as the board tells it: 0 within maxSkew.
func skewOf(d time.Duration) time.Duration {
	if d > -maxSkew && d < maxSkew {
		return 0
	}
	return d.Round(time.Second)
}

// skewLabel says a machine's clock is off, in its rows' project.
func skewLabel(d time.Duration) string {
	dir := "ahead"
	if d < 0 {
		d, dir = -d, "behind"
	}
	var t string
	switch {
	case d < time.Minute:
		t = fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		t = fmt.Sprintf("%dm", int(d/time.Minute))
	default:
		t = fmt.Sprintf("%dh%dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return " (clock " + t + " " + dir + ")"
}

// flushStores stores the boards taken since their machine's last store,
// storePace after it.
func (r *remote) flushStores(now time.Time) {
	type put struct {
		name string
		data []byte
	}
	var puts []put
	r.mu.Lock()
	for name, m := range r.machines {
		if m.pending != nil && now.Sub(m.storedAt) >= storePace {
			puts = append(puts, put{name, m.pending})
			m.pending, m.storedAt = nil, now
		}
	}
	r.mu.Unlock()
	for _, p := range puts {
		r.store(p.name, p.data)
	}
}

// setPresence records a machine's presence key: put (at) or expired.
func (r *remote) setPresence(name string, present bool, at time.Time) {
	r.mu.Lock()
	if r.allowed != nil && !r.allowed(name) || !present && r.machines[name] == nil {
		r.mu.Unlock()
		return // the expiry of a machine already forgotten (revoked)
	}
	m := r.get(name)
	flip := m.present != present
	m.present = present
	if present {
		m.lastSeen = at.UnixMilli()
	}
	changed := r.changed
	r.mu.Unlock()
	if flip {
		changed()
	}
}

// forget drops a machine (revoked).
func (r *remote) forget(name string) {
	r.mu.Lock()
	delete(r.machines, name)
	changed := r.changed
	r.mu.Unlock()
	changed()
}

// rowID keys a remote row: (machine, session), "machine/session". An id
// that would pass state.MaxSessionID (a 63-byte name and a long session
// id) is "machine/~" and the first 32 hex digits of the session id's
// SHA-256 instead, so a hub's row ids keep the contract's bound in
// state.json, on the board and in its ✕; resolve maps it back.
func rowID(machine, id string) string {
	if len(machine)+1+len(id) <= state.MaxSessionID {
		return machine + "/" + id
	}
	sum := sha256.Sum256([]byte(id))
	return machine + "/" + aliasMark + hex.EncodeToString(sum[:16])
}

// aliasMark begins the session part of a long row id (rowID).
const aliasMark = "~"

// resolve splits a remote row id into its machine and the machine's own
// session id, mapping a long id's alias (rowID) back through the rows the
// machine has.
func (r *remote) resolve(id string) (name, sid string, ok bool) {
	name, sid, ok = strings.Cut(id, "/")
	if !ok || !strings.HasPrefix(sid, aliasMark) {
		return name, sid, ok
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.machines[name]; m != nil && m.doc != nil {
		for _, s := range m.doc.Sessions {
			if rowID(name, s.ID) == id {
				return name, s.ID, true
			}
		}
	}
	return name, sid, true
}

// unknownLabel marks a quiet machine's rows in project.
const unknownLabel = " (unknown)"

// Compose is host.Remote's: the other machines' rows after this one's,
// keyed (machine, session); every row labelled with its machine in project
// when rows of more than one machine are on the board, and a quiet
// machine's rows always ("name (unknown)").
func (r *remote) Compose(d state.Document, _ time.Time) state.Document {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.machines))
	withRows := 0
	if len(d.Sessions) > 0 {
		withRows++
	}
	for name, m := range r.machines {
		if name == r.self || m.doc == nil {
			continue
		}
		names = append(names, name)
		if len(m.doc.Sessions) > 0 {
			withRows++
		}
	}
	if len(names) == 0 {
		return d
	}
	slices.Sort(names)
	label := withRows > 1
	if label {
		own := make([]state.Session, len(d.Sessions))
		for i, s := range d.Sessions {
			s.Project = labelled(r.self, "", s.Project)
			own[i] = s
		}
		d.Sessions = own
	}
	var extra []state.Session
	for _, name := range names {
		m := r.machines[name]
		for _, s := range m.doc.Sessions {
			s.ID = rowID(name, s.ID)
			if s.ParentSession != "" {
				s.ParentSession = rowID(name, s.ParentSession)
			}
			switch {
			case !m.present:
				s.Project = labelled(name, unknownLabel, s.Project)
			case m.skew != 0:
				s.Project = labelled(name, skewLabel(m.skew), s.Project)
			case label:
				s.Project = labelled(name, "", s.Project)
			}
			extra = append(extra, s)
		}
	}
	return state.Compose(d, extra, d.Settings.ShowDone)
}

func labelled(machine, mark, project string) string {
	if project == "" {
		return machine + mark
	}
	return state.Cut(machine+mark+" · "+project, state.MaxTitle)
}

// Owns is host.Remote's: an id "machine/session" of a machine this board
// has a board of, or has paired — whether or not that row exists.
func (r *remote) Owns(id string) bool {
	name, _, ok := strings.Cut(id, "/")
	if !ok || CheckName(name) != nil || name == r.self {
		return false
	}
	r.mu.Lock()
	_, have := r.machines[name]
	r.mu.Unlock()
	return have || (r.known != nil && r.known(name))
}

// Has is host.Remote's: a row "machine/session" that machine's latest
// board has.
func (r *remote) Has(id string) bool {
	name, _, ok := strings.Cut(id, "/")
	if !ok || name == r.self {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.machines[name]
	return m != nil && m.doc != nil && slices.ContainsFunc(m.doc.Sessions, func(s state.Session) bool { return rowID(name, s.ID) == id })
}

// Unknown is host.Remote's: the rows of machines that are not present.
func (r *remote) Unknown() map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out map[string]bool
	for name, m := range r.machines {
		if m.present || m.doc == nil || name == r.self {
			continue
		}
		for _, s := range m.doc.Sessions {
			if out == nil {
				out = map[string]bool{}
			}
			out[rowID(name, s.ID)] = true
		}
	}
	return out
}

// Retire is host.Remote's: the close-out goes to the machine that holds
// the session, whose board then drops it.
func (r *remote) Retire(ids ...string) bool {
	by := map[string][]string{}
	owned := false
	for _, id := range ids {
		if r.Owns(id) {
			owned = true
			if r.Has(id) { // only rows that exist go to their machine
				name, sid, _ := r.resolve(id)
				by[name] = append(by[name], sid)
			}
		}
	}
	for name, sids := range by {
		if r.sendFin != nil {
			r.sendFin(name, sids)
		}
	}
	return owned
}

// Machines lists the machines with a board or a presence here, merged with
// those paired (from paired; nil under --nats), by name.
func (r *remote) list(paired []Paired) []Machine {
	r.mu.Lock()
	byName := map[string]*Machine{}
	for name, m := range r.machines {
		if name == r.self {
			continue
		}
		x := &Machine{Name: name, Present: m.present, LastSeen: m.lastSeen}
		if m.doc != nil {
			x.Sessions = len(m.doc.Sessions)
		}
		byName[name] = x
	}
	r.mu.Unlock()
	for _, p := range paired {
		if byName[p.Name] == nil {
			byName[p.Name] = &Machine{Name: p.Name}
		}
		byName[p.Name].Paired = true
	}
	out := make([]Machine, 0, len(byName))
	for _, m := range byName {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b Machine) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// watch feeds the remote from both buckets until ctx ends: the boards'
// current values (the live ones come on notch.*.board, boardSubject), and
// presence for ever. ready is closed once both have delivered their current
// values, so a board that starts shows every machine's latest rows at once.
func (r *remote) watch(ctx context.Context, boards, presence jetstream.KeyValue, ready chan<- struct{}) error {
	bw, err := boards.WatchAll(ctx)
	if err != nil {
		return err
	}
	defer bw.Stop()
	pw, err := presence.WatchAll(ctx)
	if err != nil {
		return err
	}
	defer pw.Stop()
	bDone, pDone := false, false
	bch := bw.Updates()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-bch:
			switch {
			case !ok:
				bch, bDone = nil, true
			case e == nil:
				bDone = true
				bw.Stop() // from here on, boards come live
			case e.Operation() == jetstream.KeyValuePut:
				r.setBoard(e.Key(), e.Value(), false)
			default:
				r.setBoard(e.Key(), nil, false)
			}
		case e, ok := <-pw.Updates():
			if !ok {
				return nil
			}
			if e == nil {
				pDone = true
			} else {
				r.setPresence(e.Key(), e.Operation() == jetstream.KeyValuePut, e.Created())
			}
		}
		if bDone && pDone && ready != nil {
			close(ready)
			ready = nil
		}
	}
}

// presenceValue is what a machine's presence key holds.
type presenceValue struct {
	At int64 `json:"at"`
}

func encodePresence(now time.Time) []byte {
	b, _ := json.Marshal(presenceValue{At: now.UnixMilli()})
	return b
}
