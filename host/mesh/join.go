package mesh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// Creds are a joined machine's: the hub it dials, the certificate it pins,
// its name and its nkey seed. join.json, mode 0600, in its DSH home.
type Creds struct {
	Hub         string `json:"hub"` // HOST:PORT
	Fingerprint string `json:"fingerprint"`
	Machine     string `json:"machine"`
	HubName     string `json:"hubName,omitempty"`
	Seed        string `json:"seed"`
	// Code names the join code this machine paired with (its ID, never
	// its secret), so that the same code again is told what to do.
	Code string `json:"code,omitempty"`
}

// ErrNotJoined: --join with no pairing in the DSH home.
var ErrNotJoined = errors.New("this machine has not joined a hub")

// LoadCreds reads a joined machine's join.json.
func LoadCreds(dshHome string) (Creds, error) {
	var c Creds
	path := filepath.Join(Dir(dshHome), joinFile)
	if err := readJSON(path, &c); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c, fmt.Errorf("%w (no %s): run notch-web join CODE with a code from notch-web pair on the hub", ErrNotJoined, path)
		}
		return c, err
	}
	if CheckName(c.Machine) != nil || len(c.Fingerprint) != 64 {
		return c, fmt.Errorf("%s is damaged: run notch-web join CODE again", path)
	}
	return c, nil
}

// ErrJoin: the hub refused the pairing; the message says why.
var ErrJoin = errors.New("the hub refused to pair")

// Join pairs this machine with the hub a join code names: a new nkey, sent
// (its public half) over TLS pinned to the code's fingerprint with the
// code's one-time secret; on the hub's yes, the credentials are written to
// this DSH home (0600). A used or expired code is refused with the hub's
// reason.
func Join(ctx context.Context, dshHome, code, machine string, now time.Time) (Creds, error) {
	c, err := ParseCode(code)
	if err != nil {
		return Creds{}, err
	}
	if err := joinedWith(dshHome, c, now); err != nil {
		return Creds{}, err
	}
	if now.After(c.Expires) {
		return Creds{}, fmt.Errorf("%w: this join code expired at %s (codes last %v): run notch-web pair on the hub for a new one",
			ErrJoin, c.Expires.UTC().Format("15:04:05 UTC"), CodeTTL)
	}
	if err := CheckName(machine); err != nil {
		return Creds{}, fmt.Errorf("--machine: %w", err)
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return Creds{}, err
	}
	seed, _ := kp.Seed()
	pub, _ := kp.PublicKey()
	nc, err := nats.Connect("tls://"+c.Addr,
		nats.Secure(pinnedTLS(c.Fingerprint)),
		nats.UserInfo(pairUser, c.ID+"."+c.Secret),
		nats.CustomInboxPrefix(pairInbox(c.ID)),
		nats.Name("notch-pair "+machine),
		nats.Timeout(5*time.Second),
		nats.NoReconnect(),
	)
	if err != nil {
		return Creds{}, dialError(c.Addr, err)
	}
	defer nc.Close()
	body, _ := json.Marshal(pairRequest{Name: machine, Nkey: pub, Secret: c.Secret})
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	msg, err := nc.RequestWithContext(rctx, pairSubject+c.ID, body)
	if err != nil {
		return Creds{}, fmt.Errorf("pairing with the hub at %s: %w", c.Addr, err)
	}
	var rep pairReply
	if err := json.Unmarshal(msg.Data, &rep); err != nil {
		return Creds{}, fmt.Errorf("pairing with the hub at %s: an answer that is not JSON", c.Addr)
	}
	if !rep.OK {
		return Creds{}, fmt.Errorf("%w: %s", ErrJoin, rep.Error)
	}
	cr := Creds{Hub: c.Addr, Fingerprint: c.Fingerprint, Machine: machine, HubName: rep.Hub, Seed: string(seed), Code: c.ID}
	if err := writeJSON(filepath.Join(Dir(dshHome), joinFile), cr); err != nil {
		return Creds{}, err
	}
	return cr, nil
}

// ErrJoined: a join code again on the machine that paired with it.
var ErrJoined = errors.New("this machine has joined that hub already")

// joinedWith refuses a code this DSH home has paired with already — the
// same code, or (credentials written before they named their code) an
// expired one of the same hub: a code pairs once, and the machine needs
// none to dial its hub again.
func joinedWith(dshHome string, c Code, now time.Time) error {
	old, err := LoadCreds(dshHome)
	if err != nil || old.Fingerprint != c.Fingerprint {
		return nil
	}
	if old.Code == c.ID || old.Code == "" && now.After(c.Expires) {
		return fmt.Errorf("%w (at %s, as %q, with this code): run notch-web --join without a code", ErrJoined, old.Hub, old.Machine)
	}
	return nil
}

// dialError says why the hub could not be reached, and what to check.
func dialError(addr string, err error) error {
	switch {
	case errors.Is(err, ErrPin):
		return fmt.Errorf("the hub at %s presented another certificate than the join code names: not paired (a new hub certificate? run notch-web pair again)", addr)
	case errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired):
		return fmt.Errorf("%w: the hub at %s refuses this join code: it was used already, has expired, or is not one it made (its log says which); run notch-web pair on the hub for a new one", ErrJoin, addr)
	}
	return fmt.Errorf("cannot reach the hub at %s: %v (is notch-web --hub running there, its port open?)", addr, err)
}
