package security

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRole(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Role
		ok   bool
	}{
		{"view", RoleView, true},
		{"answer", RoleAnswer, true},
		{"steer", RoleSteer, true},
		{"launch", RoleLaunch, true},
		{"", 0, false},
		{"Launch", 0, false}, // exact: a hand-edited "Launch" is not read as launch
		{" view", 0, false},
		{"admin", 0, false},
		{"full", 0, false},
		{"view\u202e", 0, false},
	} {
		got, err := ParseRole(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("ParseRole(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrRole) {
			t.Errorf("ParseRole(%q) error %v is not ErrRole", tc.in, err)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

// TestRoleAllows is the ladder: each role allows itself and every role
// below it, nothing above; the zero and out-of-range roles allow nothing.
func TestRoleAllows(t *testing.T) {
	all := append([]Role{0, RoleLaunch + 1, 255}, Roles...)
	for _, r := range all {
		for _, need := range Roles {
			want := r.Valid() && r >= need
			if got := r.Allows(need); got != want {
				t.Errorf("%v(%d).Allows(%v) = %v, want %v", r, r, need, got, want)
			}
		}
	}
	if !RoleLaunch.Allows(RoleView) || RoleView.Allows(RoleAnswer) || Role(0).Allows(RoleView) || Role(200).Allows(RoleView) {
		t.Fatal("the ladder is wrong")
	}
}

func TestRoleText(t *testing.T) {
	for _, r := range Roles {
		b, err := r.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Role
		if err := back.UnmarshalText(b); err != nil || back != r {
			t.Errorf("%v round-trips to %v, %v", r, back, err)
		}
	}
	if _, err := Role(0).MarshalText(); err == nil {
		t.Error("the zero role was written")
	}
	if got := RoleAnswer.Refusal(RoleLaunch); got != "this device's role (answer) does not allow starting sessions" {
		t.Errorf("Refusal = %q", got)
	}
	if Role(0).String() != "unknown" {
		t.Errorf("zero role is %q", Role(0).String())
	}
}

// TestDeviceRoles: a devices.json from before roles gives every device
// answer; a role this build does not know allows nothing and is written
// back as it was (never widened, never lost) until SetRole sets one; a
// pairing's role is the link's; SetRole lasts across a restart.
func TestDeviceRoles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "devices.json")
	old := strings.Replace(goodRecord, `"name":"phone"`, `"name":"old"`, 1)
	hand := strings.NewReplacer(`0123456789abcdef"`, `fedcba9876543210"`, `"name":"phone"`, `"name":"edited","role":"admin"`).Replace(goodRecord)
	if err := os.WriteFile(path, []byte(`{"version":1,"devices":[`+old+`,`+hand+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDevices(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := d.Role("0123456789abcdef"); !ok || r != RoleAnswer {
		t.Errorf("a device from before roles: %v %v, want answer", r, ok)
	}
	if r, ok := d.Role("fedcba9876543210"); !ok || r != 0 || r.Allows(RoleView) {
		t.Errorf("a hand-edited role: %v %v, want the zero role, allowing nothing", r, ok)
	}

	p, err := d.NewPairingAs("tablet", RoleSteer)
	if err != nil {
		t.Fatal(err)
	}
	dev, _, err := d.Redeem(p.Code)
	if err != nil || dev.Role != RoleSteer {
		t.Fatalf("paired %+v, %v; want the link's role, steer", dev, err)
	}
	if _, err := d.NewPairingAs("x", 0); !errors.Is(err, ErrRole) {
		t.Errorf("a pairing of no role: %v, want ErrRole", err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"role": "admin"`) || !strings.Contains(string(data), `"role": "steer"`) || !strings.Contains(string(data), `"role": "answer"`) {
		t.Errorf("devices.json after a pairing:\n%s\nwant the unknown role kept as it was, and every other role written", data)
	}

	before, after, err := d.SetRole("edited", RoleView)
	if err != nil || before.Role != 0 || after.Role != RoleView {
		t.Fatalf("SetRole = %v → %v, %v", before.Role, after.Role, err)
	}
	if _, _, err := d.SetRole("tablet", Role(9)); !errors.Is(err, ErrRole) {
		t.Errorf("SetRole to no role: %v, want ErrRole", err)
	}
	if _, _, err := d.SetRole("nobody", RoleView); !errors.Is(err, ErrNoDevice) {
		t.Errorf("SetRole of nobody: %v, want ErrNoDevice", err)
	}
	again, err := OpenDevices(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]Role{"fedcba9876543210": RoleView, dev.ID: RoleSteer, "0123456789abcdef": RoleAnswer} {
		if r, _ := again.Role(id); r != want {
			t.Errorf("after a restart %s is %v, want %v", id, r, want)
		}
	}
	// A role word past any bound refuses the file (it is not kept).
	long := strings.Replace(goodRecord, `{`, `{"role":"`+strings.Repeat("x", 100)+`",`, 1)
	if _, err := ParseDevices([]byte(`{"version":1,"devices":[` + long + `]}`)); err == nil {
		t.Error("a 100-byte role was taken")
	}
}
