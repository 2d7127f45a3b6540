package security

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable clock for the store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openStore(t *testing.T) (*Devices, *clock, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "agents-notch", "devices.json")
	c := &clock{t: time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)}
	d, err := OpenDevices(path, c.now)
	if err != nil {
		t.Fatal(err)
	}
	return d, c, path
}

// pair makes a code for name and redeems it: the device and its cookie.
func pair(t *testing.T, d *Devices, name string) (Device, string) {
	t.Helper()
	p, err := d.NewPairing(name)
	if err != nil {
		t.Fatal(err)
	}
	dev, cookie, err := d.Redeem(p.Code)
	if err != nil {
		t.Fatal(err)
	}
	return dev, cookie
}

func TestPairingIsOnceAndExpires(t *testing.T) {
	d, c, _ := openStore(t)
	p, err := d.NewPairing("phone")
	if err != nil {
		t.Fatal(err)
	}
	if p.Expires.Sub(c.now()) != PairingTTL || PairingTTL != 10*time.Minute {
		t.Errorf("the code expires %v after it is made, want 10m", p.Expires.Sub(c.now()))
	}
	if name, err := d.PairingName(p.Code); err != nil || name != "phone" {
		t.Fatalf("PairingName = %q, %v", name, err)
	}
	dev, cookie, err := d.Redeem(p.Code)
	if err != nil || dev.Name != "phone" || len(dev.ID) != 16 {
		t.Fatalf("Redeem = %+v, %v", dev, err)
	}
	if got, _, ok := d.Check(cookie); !ok || got.ID != dev.ID {
		t.Fatalf("the new cookie is not the device: %+v %v", got, ok)
	}
	// A replay of the code pairs nothing.
	if _, _, err := d.Redeem(p.Code); err != ErrCodeUsed {
		t.Errorf("a used code again: %v, want ErrCodeUsed", err)
	}
	// An expired code.
	q, _ := d.NewPairing("tablet")
	c.add(PairingTTL)
	if _, _, err := d.Redeem(q.Code); err != ErrCodeExpired {
		t.Errorf("a code at its expiry: %v, want ErrCodeExpired", err)
	}
	if _, _, err := d.Redeem("never-made"); err != ErrCodeUnknown {
		t.Errorf("an unknown code: %v, want ErrCodeUnknown", err)
	}
	// A newer code for a name voids the older one.
	r1, _ := d.NewPairing("laptop")
	r2, _ := d.NewPairing("laptop")
	if _, _, err := d.Redeem(r1.Code); err != ErrCodeUsed {
		t.Errorf("a code a newer one replaced: %v, want ErrCodeUsed", err)
	}
	if _, _, err := d.Redeem(r2.Code); err != nil {
		t.Errorf("the newer code: %v", err)
	}
	// A paired name cannot be paired again.
	if _, err := d.NewPairing("Phone"); err != ErrNameTaken {
		t.Errorf("a paired name again: %v, want ErrNameTaken", err)
	}
	if len(d.List()) != 2 {
		t.Errorf("List = %+v, want phone and laptop", d.List())
	}
}

func TestCheckRefusesWhatIsNotTheCookie(t *testing.T) {
	d, _, _ := openStore(t)
	dev, cookie := pair(t, d, "phone")
	id, token, _ := strings.Cut(cookie, ".")
	flip := []byte(token)
	flip[0] ^= 1
	for _, bad := range []string{
		"", ".", id, id + ".", id + "." + string(flip), // a token one bit off
		"0000000000000000." + token, // another id with its token
		strings.ToUpper(id) + "." + token,
		id + "." + token + "x",
		id + "." + strings.Repeat("A", 10000),
	} {
		if got, _, ok := d.Check(bad); ok {
			t.Errorf("Check(%.40q) = %+v, want refused", bad, got)
		}
	}
	if _, _, ok := d.Check(cookie); !ok {
		t.Errorf("the device's own cookie is refused")
	}
	_ = dev
}

func TestRevokeIsAtOnce(t *testing.T) {
	d, _, path := openStore(t)
	dev, cookie := pair(t, d, "phone")
	_, other := pair(t, d, "tablet")
	_, ctx, ok := d.Check(cookie)
	if !ok {
		t.Fatal("not paired")
	}
	ch, stop := d.Subscribe()
	defer stop()
	got, err := d.Revoke("PHONE") // by name, any case
	if err != nil || got.ID != dev.ID {
		t.Fatalf("Revoke = %+v, %v", got, err)
	}
	select {
	case <-ctx.Done():
	default:
		t.Error("the revoked device's context is not done: its streams would stay open")
	}
	select {
	case <-ch:
	default:
		t.Error("a revocation woke no subscriber: the pane would still list it")
	}
	if _, _, ok := d.Check(cookie); ok {
		t.Error("a revoked cookie is still admitted")
	}
	if _, _, ok := d.Check(other); !ok {
		t.Error("revoking one device refused another")
	}
	if _, err := d.Revoke(dev.ID); err != ErrNoDevice {
		t.Errorf("revoking it again: %v, want ErrNoDevice", err)
	}
	// By id, and the file agrees after a restart.
	d2, err := OpenDevices(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := d2.List(); len(l) != 1 || l[0].Name != "tablet" {
		t.Errorf("after a restart: %+v, want tablet alone", l)
	}
	if _, _, ok := d2.Check(cookie); ok {
		t.Error("a revoked cookie is admitted after a restart")
	}
	if _, _, ok := d2.Check(other); !ok {
		t.Error("a paired cookie is refused after a restart")
	}
}

func TestTheFileHoldsNoTokenAndIsPrivate(t *testing.T) {
	d, c, path := openStore(t)
	_, cookie := pair(t, d, "phone")
	_, token, _ := strings.Cut(cookie, ".")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), token) {
		t.Errorf("devices.json holds the token itself:\n%s", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("devices.json is mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := ParseDevices(data); err != nil {
		t.Errorf("the store's own file does not parse: %v", err)
	}
	// LastSeen is written at the first sighting, then at most once a
	// minute.
	c.add(30 * time.Second)
	d.Check(cookie)
	first := c.now()
	c.add(20 * time.Second)
	d.Check(cookie)
	d2, _ := OpenDevices(path, nil)
	if seen := d2.List()[0].LastSeen; !seen.Equal(first) {
		t.Errorf("LastSeen on disk %v within the minute, want the first sighting %v", seen, first)
	}
	if seen := d.List()[0].LastSeen; !seen.Equal(c.now()) {
		t.Errorf("LastSeen in memory %v, want %v", seen, c.now())
	}
	c.add(time.Minute)
	d.Check(cookie)
	d3, _ := OpenDevices(path, nil)
	if seen := d3.List()[0].LastSeen; !seen.Equal(c.now()) {
		t.Errorf("LastSeen on disk %v after a minute, want %v", seen, c.now())
	}
}

func TestOpenDevicesRefusesABrokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "devices.json")
	os.WriteFile(path, []byte(`{"version":1,"devices":[{"id":"x"}]}`), 0o600)
	_, err := OpenDevices(path, nil)
	if err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("a broken devices.json: %v, want a refusal saying what to do", err)
	}
}

const goodRecord = `{"id":"0123456789abcdef","name":"phone","created":"2026-12-03T10:00:00Z","tokenSha256":"` +
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" + `"}`

func TestParseDevices(t *testing.T) {
	rec := func(edit func(string) string) string { return `{"version":1,"devices":[` + edit(goodRecord) + `]}` }
	same := func(s string) string { return s }
	tests := []struct {
		name, in, wantErr string
	}{
		{"empty store", `{"version":1,"devices":[]}`, ""},
		{"one device", rec(same), ""},
		{"last seen", rec(func(s string) string {
			return strings.Replace(s, `"created"`, `"lastSeen":"2026-12-03T11:00:00Z","created"`, 1)
		}), ""},
		{"not JSON", `{`, "truncated"},
		{"trailing data", `{"version":1,"devices":[]} {}`, "trailing"},
		{"another version", `{"version":2,"devices":[]}`, "version 2"},
		{"no version", `{"devices":[]}`, "version 0"},
		{"unknown field", `{"version":1,"devices":[],"x":1}`, "unknown field"},
		{"unknown device field", rec(func(s string) string { return strings.Replace(s, `{`, `{"token":"t",`, 1) }), "unknown field"},
		{"short id", rec(func(s string) string { return strings.Replace(s, "0123456789abcdef\"", "0123\"", 1) }), "id must be"},
		{"upper-case id", rec(func(s string) string { return strings.Replace(s, "0123456789abcdef\"", "0123456789ABCDEF\"", 1) }), "id must be"},
		{"empty name", rec(func(s string) string { return strings.Replace(s, `"phone"`, `""`, 1) }), "device name"},
		{"markup name", rec(func(s string) string { return strings.Replace(s, `"phone"`, `"<b>x</b>"`, 1) }), "device name"},
		{"bidi name", rec(func(s string) string { return strings.Replace(s, `"phone"`, `"ph\u202eone"`, 1) }), "device name"},
		{"control name", rec(func(s string) string { return strings.Replace(s, `"phone"`, `"ph\u0007one"`, 1) }), "device name"},
		{"long name", rec(func(s string) string { return strings.Replace(s, `"phone"`, `"`+strings.Repeat("a", 41)+`"`, 1) }), "device name"},
		{"no created", rec(func(s string) string { return strings.Replace(s, `"created":"2026-12-03T10:00:00Z",`, ``, 1) }), "created"},
		{"short hash", rec(func(s string) string { return strings.Replace(s, `"tokenSha256":"0123`, `"tokenSha256":"`, 1) }), "tokenSha256"},
		{"hash not hex", rec(func(s string) string { return strings.Replace(s, `"tokenSha256":"0`, `"tokenSha256":"g`, 1) }), "tokenSha256"},
		{"id twice", `{"version":1,"devices":[` + goodRecord + `,` + strings.Replace(goodRecord, `"phone"`, `"tablet"`, 1) + `]}`, "twice"},
		{"name twice", `{"version":1,"devices":[` + goodRecord + `,` + strings.Replace(strings.Replace(goodRecord, `"phone"`, `"PHONE"`, 1), "0123456789abcdef\"", "1123456789abcdef\"", 1) + `]}`, "twice"},
		{"too many", `{"version":1,"devices":[` + strings.TrimSuffix(strings.Repeat(goodRecord+",", MaxDevices+1), ",") + `]}`, "at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDevices([]byte(tt.in))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("err = %v, want one saying %q", err, tt.wantErr)
			}
		})
	}
}

// FuzzParseDevices: ParseDevices never panics, and what it takes is written
// back (formatDevices) to a file it takes again, device for device.
func FuzzParseDevices(f *testing.F) {
	f.Add(`{"version":1,"devices":[]}`)                                                                     // an empty store
	f.Add(`{"version":1,"devices":[` + goodRecord + `]}`)                                                   // one device
	f.Add(`{"version":1,"devices":[` + goodRecord + `,` + goodRecord + `]}`)                                // the same device twice
	f.Add(`{"version":1,"devices":[{"id":"0123456789abcdef","name":"ph\u202eone"}]}`)                       // a bidi name
	f.Add(`{"version":1,"devices":null}`)                                                                   // null devices
	f.Add(`[]`)                                                                                             // not an object
	f.Add(`{"version":1,"devices":[` + strings.Replace(goodRecord, `{`, `{"role":"steer",`, 1) + `]}`)      // a known role
	f.Add(`{"version":1,"devices":[` + strings.Replace(goodRecord, `{`, `{"role":"admin",`, 1) + `]}`)      // a role this build does not know
	f.Add(`{"version":1,"devices":[` + strings.Replace(goodRecord, `{`, `{"role":"vi\u202eew",`, 1) + `]}`) // a bidi role
	f.Add(`{"version":1,"devices":[` + strings.Replace(goodRecord, `{`, `{"role":"",`, 1) + `]}`)           // an empty role
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := ParseDevices([]byte(in))
		if err != nil {
			return
		}
		out, err := formatDevices(recs)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseDevices(out)
		if err != nil {
			t.Fatalf("its own output refused: %v\n%s", err, out)
		}
		if len(again) != len(recs) {
			t.Fatalf("%d devices became %d", len(recs), len(again))
		}
		for i := range recs {
			if recs[i].ID != again[i].ID || recs[i].Name != again[i].Name || recs[i].hash != again[i].hash || !recs[i].Created.Equal(again[i].Created) ||
				recs[i].Role != again[i].Role || recs[i].roleText != again[i].roleText {
				t.Fatalf("device %d changed: %+v → %+v", i, recs[i], again[i])
			}
		}
	})
}

func TestCheckDeviceName(t *testing.T) {
	for name, want := range map[string]bool{
		"phone": true, "Jo's phone": false, "iPad mini 6": true, "téléphone": true, "a.b_c-d": true,
		"": false, " phone": false, "phone ": false, "<script>": false, "ph\u200bone": false,
		strings.Repeat("é", 40): true, strings.Repeat("é", 41): false, "\xff": false,
	} {
		if got := CheckDeviceName(name) == nil; got != want {
			t.Errorf("CheckDeviceName(%q) ok = %v, want %v", name, got, want)
		}
	}
}

// FuzzCheck: a cookie value from a browser never panics Check, and no value
// but the device's own is admitted.
func FuzzCheck(f *testing.F) {
	path := filepath.Join(f.TempDir(), "devices.json")
	d, err := OpenDevices(path, nil)
	if err != nil {
		f.Fatal(err)
	}
	p, _ := d.NewPairing("phone")
	_, cookie, err := d.Redeem(p.Code)
	if err != nil {
		f.Fatal(err)
	}
	id, token, _ := strings.Cut(cookie, ".")
	f.Add(cookie)                   // the device's own
	f.Add(id + "." + token[:42])    // a token cut short
	f.Add(id + ".." + token)        // two dots
	f.Add(strings.Repeat(".", 100)) // dots only
	f.Add("")                       // none
	f.Fuzz(func(t *testing.T, v string) {
		if _, _, ok := d.Check(v); ok && v != cookie {
			t.Fatalf("%q admitted; only %q is the device's", v, cookie)
		}
	})
}
