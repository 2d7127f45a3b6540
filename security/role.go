package security

import (
	"context"
	"errors"
	"fmt"
)

// Role is what a paired device may do (docs/security.md, "Roles"). Each
// role allows everything the roles below it allow: RoleView < RoleAnswer <
// RoleSteer < RoleLaunch. The zero Role allows nothing: a device whose
// role is unknown (a hand-edited devices.json) is refused, never widened.
// This machine's own loopback is RoleLaunch.
type Role uint8

// The roles, lowest first.
const (
	// RoleView sees the board, the history and the ledger.
	RoleView Role = iota + 1
	// RoleAnswer also answers approvals, questions and plans, and acts on
	// pushes.
	RoleAnswer
	// RoleSteer also types a Reply and sends Stop.
	RoleSteer
	// RoleLaunch also starts sessions.
	RoleLaunch
)

// DefaultRole is the role of a device paired without one named, and of a
// device in a devices.json written before roles.
const DefaultRole = RoleAnswer

// Roles are the roles, lowest first.
var Roles = []Role{RoleView, RoleAnswer, RoleSteer, RoleLaunch}

var roleNames = [...]string{RoleView: "view", RoleAnswer: "answer", RoleSteer: "steer", RoleLaunch: "launch"}

// ErrRole is ParseRole's error: the word is no role.
var ErrRole = errors.New("a role is view, answer, steer or launch")

// ParseRole reads a role's name: view, answer, steer or launch (exactly,
// in lower case).
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if roleNames[r] == s {
			return r, nil
		}
	}
	return 0, ErrRole
}

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool { return r >= RoleView && r <= RoleLaunch }

// String is the role's name ("answer"); an invalid role is "unknown".
func (r Role) String() string {
	if !r.Valid() {
		return "unknown"
	}
	return roleNames[r]
}

// Allows reports whether a device of role r may do what needs role need:
// r is a role and at least need.
func (r Role) Allows(need Role) bool { return r.Valid() && r >= need }

// Lacks names what a role below need may not do, for a refusal's sentence:
// "this device's role (answer) does not allow " + need.Lacks().
func (need Role) Lacks() string {
	switch need {
	case RoleView:
		return "seeing the board"
	case RoleAnswer:
		return "answering approvals, questions and plans"
	case RoleSteer:
		return "Reply and Stop"
	case RoleLaunch:
		return "starting sessions"
	}
	return "this"
}

// Refusal is the one sentence that says a device of role r may not do what
// needs need.
func (r Role) Refusal(need Role) string {
	return fmt.Sprintf("this device's role (%s) does not allow %s", r, need.Lacks())
}

// MarshalText writes the role's name; an invalid role is an error (it is
// never written as something it is not).
func (r Role) MarshalText() ([]byte, error) {
	if !r.Valid() {
		return nil, fmt.Errorf("role %d: %w", r, ErrRole)
	}
	return []byte(roleNames[r]), nil
}

// UnmarshalText reads a role's name (ParseRole).
func (r *Role) UnmarshalText(b []byte) error {
	v, err := ParseRole(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// SetRole gives the device idOrName names (find) the role r, at once: the
// next request of it is checked against r, and its open streams are told
// (Subscribe). It returns the device before and after. The file is written
// before the change is kept; a failed write changes nothing.
func (d *Devices) SetRole(idOrName string, r Role) (before, after Device, err error) {
	if !r.Valid() {
		return Device{}, Device{}, ErrRole
	}
	d.mu.Lock()
	e, err := d.find(idOrName)
	if err != nil {
		d.mu.Unlock()
		return Device{}, Device{}, err
	}
	before = e.Device
	oldText := e.roleText
	e.Role, e.roleText = r, ""
	after = e.Device
	d.mu.Unlock()
	if err := d.save(); err != nil {
		d.mu.Lock()
		if cur, ok := d.devices[before.ID]; ok && cur == e {
			e.Role, e.roleText = before.Role, oldText
		}
		d.mu.Unlock()
		d.changes.Notify()
		return Device{}, Device{}, err
	}
	if before.Role != r {
		d.mu.Lock()
		e.roleCancel() // what watched the old role (an open stream) ends
		e.roleCtx, e.roleCancel = context.WithCancel(e.ctx)
		d.mu.Unlock()
	}
	return before, after, nil
}

// Role is the role of the paired device of the id, as it is now, and
// whether such a device is paired (a push capability's device is checked
// against it at each press: push.Options.MayAnswer).
func (d *Devices) Role(id string) (Role, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.devices[id]
	if !ok {
		return 0, false
	}
	return e.Role, true
}

// Watch is the paired device of the id as it is now, and a context done
// when its role next changes or it is revoked: an open stream drawn for
// one role ends with it, and the page's next stream is drawn for the new
// one.
func (d *Devices) Watch(id string) (Device, context.Context, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.devices[id]
	if !ok {
		return Device{}, nil, false
	}
	return e.Device, e.roleCtx, true
}

// PairingOf is the name and the role a code would pair, or why it would
// not (PairingName's reasons).
func (d *Devices) PairingOf(code string) (string, Role, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, err := d.pendingFor(code)
	if err != nil {
		return "", 0, err
	}
	return p.name, p.role, nil
}

// MayAnswer reports whether the paired device of the id may answer now
// (RoleAnswer or more): what a push's actions need (push.Options.MayAnswer).
func (d *Devices) MayAnswer(id string) bool {
	r, ok := d.Role(id)
	return ok && r.Allows(RoleAnswer)
}
