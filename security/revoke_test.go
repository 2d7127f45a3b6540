package security

import (
	"errors"
	"strings"
	"testing"
)

// Revoke's word is resolved exactly: a device's id (any case) or its name
// (any case). A word that is one device's id and another's name names
// neither (ErrAmbiguous, both stay paired) — before, whichever came first
// of a map's order went. A new name shaped like an id is refused at
// pairing, so no new ambiguity is made; one from an older devices.json is
// still told apart by the other's name or the one's id.
func TestRevokeResolvesExactly(t *testing.T) {
	d, _, _ := openStore(t)
	phone, phoneCookie := pair(t, d, "phone")
	tablet, tabletCookie := pair(t, d, "tablet")
	// An older file's tablet, named as the phone's id is.
	d.mu.Lock()
	d.devices[tablet.ID].Name = phone.ID
	d.mu.Unlock()

	for _, word := range []string{phone.ID, strings.ToUpper(phone.ID)} {
		if got, err := d.Revoke(word); !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "tablet") && !strings.Contains(err.Error(), tablet.ID) {
			t.Errorf("Revoke(%q) = %+v, %v; want ErrAmbiguous naming the way out", word, got, err)
		}
	}
	if _, _, ok := d.Check(phoneCookie); !ok {
		t.Error("an ambiguous revoke revoked the phone")
	}
	if _, _, ok := d.Check(tabletCookie); !ok {
		t.Error("an ambiguous revoke revoked the tablet")
	}
	// The other's id, and the one's name, are each exactly one device.
	if got, err := d.Revoke(tablet.ID); err != nil || got.ID != tablet.ID {
		t.Fatalf("Revoke(the tablet's id) = %+v, %v", got, err)
	}
	if got, err := d.Revoke("PHONE"); err != nil || got.ID != phone.ID {
		t.Fatalf("Revoke(PHONE) = %+v, %v", got, err)
	}
	if _, err := d.Revoke("phone"); !errors.Is(err, ErrNoDevice) {
		t.Errorf("Revoke of a revoked one: %v, want ErrNoDevice", err)
	}

	// A name shaped like an id is refused at pairing.
	for _, name := range []string{"0123456789abcdef", "0123456789ABCDEF"} {
		if _, err := d.NewPairing(name); !errors.Is(err, ErrDeviceName) {
			t.Errorf("NewPairing(%q) = %v, want a refusal: a name must not look like an id", name, err)
		}
	}
	for _, name := range []string{"0123456789abcde", "phone 0123456789abcdef", "0123456789abcdefg"} {
		if _, err := d.NewPairing(name); err != nil {
			t.Errorf("NewPairing(%q) = %v, want a pairing: not shaped like an id", name, err)
		}
	}
}
