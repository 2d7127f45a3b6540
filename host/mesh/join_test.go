//go:build notch_hub

package mesh

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
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

// TestRevokedMachineSaysSo: a machine the hub revokes stops dialling —
// not a redial three times a second for ever — and goes on serving its own
// board, which says why it is not on the hub; its log says so once, at
// once, with what to do. A machine whose key the hub never knew says the
// same at its start.
func TestRevokedMachineSaysSo(t *testing.T) {
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
	cr, err := LoadCreds(home)
	if err != nil {
		t.Fatal(err)
	}
	n, logs, done := runJoined(t, cr)
	waitfor.Until(t, "alpha present on the hub", func() bool {
		ms := hub.Machines()
		return len(ms) == 1 && ms[0].Present && n.HubLink() == ""
	})
	if err := hub.Revoke("alpha"); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`the hub refuses this machine (\"alpha\", at %s): it was revoked, or the hub no longer knows it; this machine shows its own board only; to come back, run notch-web pair on the hub, then notch-web --join CODE here`, addr)
	waitfor.Until(t, "alpha's board saying it is revoked", func() bool { return n.HubLink() == linkRevoked })
	waitfor.Until(t, "the dialling ended", func() bool { return n.nc.IsClosed() })
	if got := strings.Count(logs.String(), `"msg":"not connected to the hub: revoked"`); got != 1 || !strings.Contains(logs.String(), want) ||
		strings.Contains(logs.String(), linkLost) {
		t.Errorf("the log says it %d times, want once with what to do, and nothing else:\n%s", got, logs)
	}
	select {
	case err := <-done:
		t.Fatalf("a revoked machine's Run ended (%v): its own board goes on", err)
	default:
	}
	// Started again with its revoked key: it says so as soon.
	n, _, _ = runJoined(t, cr)
	waitfor.Until(t, "a revoked machine's start saying so", func() bool { return n.HubLink() == linkRevoked && n.nc.IsClosed() })
}
