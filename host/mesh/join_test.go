package mesh

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
)

// TestJoinTwiceWithTheSameCode: a machine that paired with a code and is
// given it again (a shell's history: notch-web --join CODE) is told to run
// --join without a code, before anything is dialled; so is one whose
// credentials name no code, given an expired code of its hub. Another
// machine's home is not.
func TestJoinTwiceWithTheSameCode(t *testing.T) {
	hub := testHub(t)
	addr := fmt.Sprintf("127.0.0.1:%d", hub.Port())
	c, err := NewCode(hub.cfg.DSHHome, addr, CodeTTL, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if _, err := Join(context.Background(), home, c.String(), "alpha", time.Now()); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`this machine has joined that hub already (at %s, as "alpha", with this code): run notch-web --join without a code`, addr)
	_, err = Join(context.Background(), home, c.String(), "alpha", time.Now())
	if !errors.Is(err, ErrJoined) || err.Error() != want {
		t.Errorf("the same code again: %v\nwant %s", err, want)
	}
	// Even after it expired, and with the hub down: nothing is dialled.
	hub.Close()
	if _, err = Join(context.Background(), home, c.String(), "alpha", c.Expires.Add(time.Hour)); err == nil || err.Error() != want {
		t.Errorf("the same code, expired, the hub down: %v", err)
	}
	// Credentials from before they named their code: an expired code of
	// the same hub says the same.
	cr, err := LoadCreds(home)
	if err != nil {
		t.Fatal(err)
	}
	cr.Code = ""
	if err := writeJSON(filepath.Join(Dir(home), joinFile), cr); err != nil {
		t.Fatal(err)
	}
	if _, err = Join(context.Background(), home, c.String(), "alpha", c.Expires.Add(time.Hour)); !errors.Is(err, ErrJoined) {
		t.Errorf("an expired code of the same hub, old credentials: %v", err)
	}
	// Another DSH home with the used code: the hub's own word (it is down
	// now, so: cannot reach it), not ErrJoined.
	if _, err = Join(context.Background(), t.TempDir(), c.String(), "beta", time.Now()); errors.Is(err, ErrJoined) || err == nil {
		t.Errorf("another machine with the code: %v", err)
	}
}

// TestRevokedMachineStops: a machine the hub revokes stops dialling: Run
// returns ErrRefused, saying what to do, within a few seconds — not a redial
// three times a second for ever. A machine whose key the hub never knew
// stops the same way at its start.
func TestRevokedMachineStops(t *testing.T) {
	hub := testHub(t)
	addr := fmt.Sprintf("127.0.0.1:%d", hub.Port())
	c, err := NewCode(hub.cfg.DSHHome, addr, CodeTTL, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if _, err := Join(context.Background(), home, c.String(), "alpha", time.Now()); err != nil {
		t.Fatal(err)
	}
	runMachine := func() <-chan error {
		svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
		n, err := Open(context.Background(), Config{DSHHome: home, Join: true})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(func() { cancel(); n.Close() })
		go func() { done <- n.Run(ctx, host.NewBoard(host.BoardConfig{HostPid: 1}, false, svc)) }()
		return done
	}
	done := runMachine()
	waitfor.Until(t, "alpha present on the hub", func() bool {
		ms := hub.Machines()
		return len(ms) == 1 && ms[0].Present
	})
	if err := hub.Revoke("alpha"); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`the hub refuses this machine ("alpha", at %s): it was revoked, or the hub no longer knows it; to come back, run notch-web pair on the hub, then notch-web --join CODE here`, addr)
	select {
	case err := <-done:
		if !errors.Is(err, ErrRefused) || err.Error() != want {
			t.Errorf("Run returned %v\nwant %s", err, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a revoked machine still dials after 5 s")
	}
	// Started again with its revoked key: it stops as soon.
	done = runMachine()
	select {
	case err := <-done:
		if !errors.Is(err, ErrRefused) {
			t.Errorf("a revoked machine's start: Run returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a revoked machine's start still dials after 5 s")
	}
}
