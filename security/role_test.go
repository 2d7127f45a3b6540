package security

import (
	"errors"
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
