package security

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/notify"
)

// Device is a paired browser (a phone, another computer's browser): the
// holder of a device cookie, which admits it past the gate.
type Device struct {
	// ID is 16 lower-case hex digits, made at pairing; the cookie names it.
	ID string `json:"id"`
	// Name is what the person called it (notch-web devices add NAME).
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	// LastSeen is its last request through the gate (zero: none yet). It
	// is kept in memory at once and written at most once a minute.
	LastSeen time.Time `json:"lastSeen,omitzero"`
	// Role is what it may do (role.go). A devices.json written before
	// roles gives DefaultRole; a role this build does not know is the zero
	// Role, which allows nothing.
	Role Role `json:"role"`
}

// The device store's errors. Each says what to do in words fit for one
// line of a command or a page.
var (
	ErrNoDevice    = errors.New("no such paired device")
	ErrAmbiguous   = errors.New("that is one paired device's id and another's name")
	ErrNotYours    = errors.New("a paired device may revoke only itself: other devices are revoked from the host itself (its own browser, or notch-web devices revoke there)")
	ErrDeviceName  = errors.New("a device name is 1 to 40 characters of text (letters, digits, spaces, . _ -), e.g. phone")
	ErrNameTaken   = errors.New("a device of that name is paired already: revoke it first, or pick another name")
	ErrTooMany     = fmt.Errorf("%d devices are paired already: revoke one first", MaxDevices)
	ErrCodeUnknown = errors.New("this pairing link is not known here: it was never made, or the host restarted since; make a new one")
	ErrCodeUsed    = errors.New("this pairing link was used already: each one pairs one device, once; make a new one")
	ErrCodeExpired = errors.New("this pairing link has expired: make a new one")
)

const (
	// MaxDevices bounds the paired devices (and so devices.json).
	MaxDevices = 64
	// PairingTTL is how long a pairing link stays good: long enough to
	// find the phone and scan the code, short enough that a link seen
	// over a shoulder is soon worth nothing.
	PairingTTL = 10 * time.Minute
	// lastSeenEvery is how stale the LastSeen on disk may be.
	lastSeenEvery = time.Minute
	// codeBytes and tokenBytes are the secrets' sizes: a pairing code is
	// 128 random bits (used once, within minutes); a device token is 256.
	codeBytes  = 16
	tokenBytes = 32
	idBytes    = 8
)

// device is one paired device as the store holds it.
type device struct {
	Device
	hash [sha256.Size]byte // SHA-256 of the token; the token itself is never kept
	// roleText is devices.json's role when this build does not know it
	// (record.roleText), written back unchanged.
	roleText string
	saved    time.Time          // the LastSeen on disk
	ctx      context.Context    // done when the device is revoked
	cancel   context.CancelFunc // revokes
	// roleCtx is done when the device's role next changes (SetRole) or it
	// is revoked; roleCancel ends it, and a new one is made.
	roleCtx    context.Context
	roleCancel context.CancelFunc
}

// pending is one pairing code not yet used or forgotten.
type pending struct {
	name    string
	role    Role
	expires time.Time
	used    bool
}

// Devices is the store of paired devices, $DSH_HOME/state/agents-notch/
// devices.json (mode 0600), and of the pairing codes not yet used (kept in
// memory only: a restart voids them). Its methods are safe for concurrent
// use. Create it with OpenDevices.
type Devices struct {
	path string
	now  func() time.Time

	mu      sync.Mutex
	devices map[string]*device // by ID
	codes   map[[sha256.Size]byte]*pending

	saveMu  sync.Mutex // one write of the file at a time, in order
	changes notify.Broadcast
	version uint64
}

// OpenDevices reads the store at path (a missing file is no device yet).
// A file that does not parse is an error: the host must not start with its
// devices silently forgotten or half read.
func OpenDevices(path string, now func() time.Time) (*Devices, error) {
	if now == nil {
		now = time.Now
	}
	d := &Devices{path: path, now: now, devices: map[string]*device{}, codes: map[[sha256.Size]byte]*pending{}}
	data, err := fsx.ReadFileLimit(path, maxDevicesFile)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return d, nil
	case err != nil:
		return nil, err // it names the file and why (fsx.ReadFileLimit)
	}
	recs, err := ParseDevices(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (fix it, or remove it: every device then pairs again)", path, err)
	}
	for _, r := range recs {
		d.add(r.Device, r.hash).roleText = r.roleText
	}
	return d, nil
}

func (d *Devices) add(dev Device, hash [sha256.Size]byte) *device {
	ctx, cancel := context.WithCancel(context.Background())
	e := &device{Device: dev, hash: hash, saved: dev.LastSeen, ctx: ctx, cancel: cancel}
	e.roleCtx, e.roleCancel = context.WithCancel(ctx)
	d.devices[dev.ID] = e
	return e
}

// List returns the paired devices, oldest first.
func (d *Devices) List() []Device {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Device, 0, len(d.devices))
	for _, e := range d.devices {
		out = append(out, e.Device)
	}
	slices.SortFunc(out, func(a, b Device) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// Version counts the changes of the list (a pairing, a revocation, a
// LastSeen written) so far.
func (d *Devices) Version() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.version
}

// Subscribe returns a channel woken after the list changes, and a function
// that stops the subscription.
func (d *Devices) Subscribe() (<-chan struct{}, func()) { return d.changes.Subscribe() }

// Pairing is a one-time pairing code just made.
type Pairing struct {
	Name    string
	Role    Role
	Code    string // the secret, for the URL /agents-notch/pair/CODE
	Expires time.Time
}

// NewPairing makes a one-time code that pairs one device named name, of
// DefaultRole, good for PairingTTL. A newer code for the same name voids
// the older one.
func (d *Devices) NewPairing(name string) (Pairing, error) {
	return d.NewPairingAs(name, DefaultRole)
}

// NewPairingAs is NewPairing for a device of role r: the role is chosen
// when the link is made (on this machine), never by the browser that
// redeems it.
func (d *Devices) NewPairingAs(name string, r Role) (Pairing, error) {
	if !r.Valid() {
		return Pairing{}, ErrRole
	}
	name = strings.TrimSpace(name)
	if err := CheckDeviceName(name); err != nil {
		return Pairing{}, err
	}
	if looksLikeID(name) {
		// Revoke's word is an id or a name: a name shaped like an id
		// would one day be both.
		return Pairing{}, fmt.Errorf("%w; and not %d hex digits, which is how a device's id looks", ErrDeviceName, 2*idBytes)
	}
	code := randomString(codeBytes)
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.nameTaken(name) {
		return Pairing{}, ErrNameTaken
	}
	if len(d.devices) >= MaxDevices {
		return Pairing{}, ErrTooMany
	}
	d.forgetCodes(now)
	for _, p := range d.codes {
		if p.name == name && !p.used {
			p.used = true // voided: the newest code for a name is the one
		}
	}
	p := Pairing{Name: name, Role: r, Code: code, Expires: now.Add(PairingTTL)}
	d.codes[sha256.Sum256([]byte(code))] = &pending{name: name, role: r, expires: p.Expires}
	return p, nil
}

// forgetCodes drops codes an hour past their expiry: until then a used or
// expired one is still told apart from one never made. d.mu is held.
func (d *Devices) forgetCodes(now time.Time) {
	for h, p := range d.codes {
		if now.Sub(p.expires) > time.Hour {
			delete(d.codes, h)
		}
	}
}

// PairingName is the name a code would pair, or why it would not.
func (d *Devices) PairingName(code string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, err := d.pendingFor(code)
	if err != nil {
		return "", err
	}
	return p.name, nil
}

// pendingFor finds a usable code. d.mu is held.
func (d *Devices) pendingFor(code string) (*pending, error) {
	p, ok := d.codes[sha256.Sum256([]byte(code))]
	switch {
	case !ok:
		return nil, ErrCodeUnknown
	case p.used:
		return nil, ErrCodeUsed
	case !d.now().Before(p.expires):
		return nil, ErrCodeExpired
	}
	return p, nil
}

// Redeem uses a pairing code once: it pairs a new device under the code's
// name and returns it with its cookie value, which is shown to nobody else
// and kept only as a hash.
func (d *Devices) Redeem(code string) (Device, string, error) {
	id, token := randomHex(idBytes), randomString(tokenBytes)
	d.mu.Lock()
	p, err := d.pendingFor(code)
	if err != nil {
		d.mu.Unlock()
		return Device{}, "", err
	}
	p.used = true // even if what follows fails: a code is tried once
	if d.nameTaken(p.name) {
		d.mu.Unlock()
		return Device{}, "", ErrNameTaken
	}
	if len(d.devices) >= MaxDevices {
		d.mu.Unlock()
		return Device{}, "", ErrTooMany
	}
	dev := Device{ID: id, Name: p.name, Created: d.now().UTC().Truncate(time.Second), Role: p.role}
	d.add(dev, sha256.Sum256([]byte(token)))
	d.mu.Unlock()
	if err := d.save(); err != nil {
		d.mu.Lock()
		d.remove(id)
		d.mu.Unlock()
		return Device{}, "", err
	}
	return dev, id + "." + token, nil
}

// nameTaken reports whether a paired device has name. d.mu is held.
func (d *Devices) nameTaken(name string) bool {
	for _, e := range d.devices {
		if strings.EqualFold(e.Name, name) {
			return true
		}
	}
	return false
}

// Check finds the paired device whose cookie value this is: the ID names
// it, the token's hash must match in constant time. It marks the device
// seen, and returns a context done when the device is revoked.
func (d *Devices) Check(cookie string) (Device, context.Context, bool) {
	id, token, ok := strings.Cut(cookie, ".")
	if !ok || len(id) != 2*idBytes || len(token) > 2*tokenBytes {
		return Device{}, nil, false
	}
	hash := sha256.Sum256([]byte(token))
	now := d.now().UTC().Truncate(time.Second)
	d.mu.Lock()
	e, found := d.devices[id]
	if !found || subtle.ConstantTimeCompare(e.hash[:], hash[:]) != 1 {
		d.mu.Unlock()
		return Device{}, nil, false
	}
	e.LastSeen = now
	stale := now.Sub(e.saved) >= lastSeenEvery
	if stale {
		e.saved = now
	}
	dev, ctx := e.Device, e.ctx
	d.mu.Unlock()
	if stale {
		_ = d.save() // LastSeen is a courtesy: a failed write is retried a minute on
	}
	return dev, ctx, true
}

// looksLikeID reports whether name is shaped as a device's id is: 2 ×
// idBytes hex digits, in any case.
func looksLikeID(name string) bool {
	if len(name) != 2*idBytes {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil
}

// find is the paired device idOrName names: the one whose id it is (any
// case), or whose name it is (any case). A word that is one device's id
// and another's name names neither (ErrAmbiguous, saying how to name each:
// a name shaped like an id is refused at pairing, but an older devices.json
// may hold one); none is ErrNoDevice. d.mu is held.
func (d *Devices) find(idOrName string) (*device, error) {
	idOrName = strings.TrimSpace(idOrName)
	byID := d.devices[strings.ToLower(idOrName)]
	var byName *device
	for _, e := range d.devices {
		if strings.EqualFold(e.Name, idOrName) {
			byName = e
			break // names are unique, in any case (nameTaken)
		}
	}
	switch {
	case byID != nil && byName != nil && byID != byName:
		return nil, fmt.Errorf("%w: %q is the id of %q and the name of the device %s; name %q by its name, or the other by its id",
			ErrAmbiguous, idOrName, byID.Name, byName.ID, byID.Name)
	case byID != nil:
		return byID, nil
	case byName != nil:
		return byName, nil
	}
	return nil, ErrNoDevice
}

// Revoke unpairs the device idOrName names (an id or a name: find) at once: its cookie is
// refused from the next request on, and every request of it still open (a
// stream) ends.
func (d *Devices) Revoke(idOrName string) (Device, error) {
	return d.RevokeAs(idOrName, "")
}

// RevokeAs is Revoke asked by the paired device of the id by ("": this
// machine, which may revoke any): a device may revoke only itself
// (ErrNotYours), so a stolen cookie cannot lock the owner's other devices
// out — as it cannot pair others (docs/security.md).
func (d *Devices) RevokeAs(idOrName, by string) (Device, error) {
	d.mu.Lock()
	hit, err := d.find(idOrName)
	if err == nil && by != "" && hit.ID != by {
		err = ErrNotYours
	}
	if err != nil {
		d.mu.Unlock()
		return Device{}, err
	}
	d.remove(hit.ID)
	d.mu.Unlock()
	return hit.Device, d.save()
}

// remove forgets a device and ends its requests. d.mu is held.
func (d *Devices) remove(id string) {
	if e, ok := d.devices[id]; ok {
		e.cancel()
		delete(d.devices, id)
	}
	d.version++
	d.changes.Notify()
}

// save writes the store as it stands (mode 0600, atomically). Writes are
// serialized and each takes its snapshot while it holds the turn, so an
// older snapshot never lands after a newer one.
func (d *Devices) save() error {
	d.saveMu.Lock()
	defer d.saveMu.Unlock()
	d.mu.Lock()
	recs := make([]record, 0, len(d.devices))
	for _, e := range d.devices {
		recs = append(recs, record{Device: e.Device, hash: e.hash, roleText: e.roleText})
	}
	d.version++
	d.mu.Unlock()
	d.changes.Notify()
	slices.SortFunc(recs, func(a, b record) int { return strings.Compare(a.ID, b.ID) })
	data, err := formatDevices(recs)
	if err != nil {
		return err
	}
	if err := fsx.WriteFilePrivate(d.path, data); err != nil {
		return fmt.Errorf("keeping the devices: %w", err)
	}
	return nil
}

// randomString is n random bytes, base64url without padding.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
