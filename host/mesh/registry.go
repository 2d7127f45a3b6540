package mesh

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
)

// Paired is one machine the hub has paired, as machines.json keeps it.
type Paired struct {
	Name      string `json:"name"`
	Nkey      string `json:"nkey"` // the public half; the seed never leaves the machine
	PairedMs  int64  `json:"pairedMs"`
	RevokedMs int64  `json:"revokedMs,omitempty"`
}

type machinesJSON struct {
	Machines []Paired `json:"machines"`
}

// pairRec is one join code's secret, as pairs.json keeps it: hashed, with
// its expiry and, once used, when and by whom.
type pairRec struct {
	ID        string `json:"id"`
	Hash      string `json:"hash"`
	ExpiresMs int64  `json:"expiresMs"`
	UsedMs    int64  `json:"usedMs,omitempty"`
	UsedBy    string `json:"usedBy,omitempty"`
}

type pairsJSON struct {
	Pairs []pairRec `json:"pairs"`
}

// pairsKeep is how long a used or expired secret is remembered, so that a
// second use is told "already used" rather than "unknown".
const pairsKeep = 7 * 24 * time.Hour

// withPairs runs f on pairs.json under its lock, and writes it back when f
// says so.
func withPairs(dir string, f func(p *pairsJSON) (write bool, err error)) error {
	path := filepath.Join(dir, pairsFile)
	unlock, err := fsx.Lock(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	var p pairsJSON
	if err := readJSON(path, &p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	write, err := f(&p)
	if err != nil || !write {
		return err
	}
	return writeJSON(path, p)
}

// HubInfo is what a running hub writes for notch-web pair.
type HubInfo struct {
	Name        string `json:"name"`
	Port        int    `json:"port"`
	Fingerprint string `json:"fingerprint"`
}

// ErrNoHub: notch-web pair in a DSH home where no hub has started.
var ErrNoHub = errors.New("no hub has started in this DSH home")

// NewCode makes a join code for the hub whose DSH home is dshHome: a fresh
// one-time secret, valid ttl, recorded (hashed) in the hub's pairs.json,
// where the running hub reads it when the machine dials in. addr is the
// address machines dial ("" = this host's name and the hub's port).
func NewCode(dshHome, addr string, ttl time.Duration, now time.Time) (Code, error) {
	dir := Dir(dshHome)
	var info HubInfo
	if err := readJSON(filepath.Join(dir, hubInfoFile), &info); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Code{}, fmt.Errorf("%w (%s): start notch-web --hub with it first, or name the hub's with --dsh-home DIR", ErrNoHub, dshHome)
		}
		return Code{}, err
	}
	if addr == "" {
		addr = fmt.Sprintf("%s:%d", hostName(), info.Port)
	}
	c := Code{Addr: addr, Fingerprint: info.Fingerprint, ID: randomToken(8), Secret: randomToken(24), Expires: now.Add(ttl).Truncate(time.Second)}
	if err := c.check(); err != nil {
		return Code{}, fmt.Errorf("--address: %v", err)
	}
	err := withPairs(dir, func(p *pairsJSON) (bool, error) {
		p.Pairs = slices.DeleteFunc(p.Pairs, func(r pairRec) bool { return now.UnixMilli()-r.ExpiresMs > pairsKeep.Milliseconds() })
		p.Pairs = append(p.Pairs, pairRec{ID: c.ID, Hash: hashSecret(c.Secret), ExpiresMs: c.Expires.UnixMilli()})
		return true, nil
	})
	return c, err
}

// unusable says why a join code's record can pair nothing more ("" when
// it can): used, or expired.
func (r *pairRec) unusable(now time.Time) string {
	switch {
	case r.UsedMs != 0:
		return fmt.Sprintf("this join code was already used (by %s at %s): run notch-web pair on the hub for a new one",
			r.UsedBy, time.UnixMilli(r.UsedMs).UTC().Format("15:04:05 UTC"))
	case now.UnixMilli() > r.ExpiresMs:
		return fmt.Sprintf("this join code expired at %s (codes last %v): run notch-web pair on the hub for a new one",
			time.UnixMilli(r.ExpiresMs).UTC().Format("15:04:05 UTC"), CodeTTL)
	}
	return ""
}

// findPair returns the record of id whose secret is secret.
func findPair(p *pairsJSON, id, secret string) (*pairRec, bool) {
	want := hashSecret(secret)
	for i := range p.Pairs {
		r := &p.Pairs[i]
		if r.ID == id && subtle.ConstantTimeCompare([]byte(r.Hash), []byte(want)) == 1 {
			return r, true
		}
	}
	return nil, false
}
