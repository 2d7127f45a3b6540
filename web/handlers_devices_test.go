package web

import (
	"strings"
	"testing"

	"github.com/notch-web/notch-web/security"
)

func TestParseDeviceBodies(t *testing.T) {
	for _, tt := range []struct {
		body, want, wantErr string
		ref                 bool
	}{
		{`{"name":"phone"}`, "phone", "", false},
		{`{"name":"  iPad mini  "}`, "iPad mini", "", false},
		{`{"name":""}`, "", "device name", false},
		{`{"name":"<img src=x>"}`, "", "device name", false},
		{`{"name":"ph\u202eone"}`, "", "device name", false},
		{`{"name":"` + strings.Repeat("a", 41) + `"}`, "", "device name", false},
		{`{"name":"phone","x":1}`, "", "unknown field", false},
		{`{"name":"phone"} {}`, "", "trailing", false},
		{`{"name":7}`, "", `want {"name": "NAME", "role": "ROLE"}`, false},
		{`{"name":"phone","role":"steer"}`, "phone steer", "", false},
		{`{"name":"phone","role":""}`, "phone", "", false}, // no role: answer
		{`{"name":"phone","role":"admin"}`, "", "a role is view, answer, steer or launch", false},
		{`{"name":"phone","role":"Steer"}`, "", "a role is", false},
		{`{"device":"phone"}`, "phone", "", true},
		{`{"device":"0123456789abcdef"}`, "0123456789abcdef", "", true},
		{`{"device":""}`, "", "paired device's name or id", true},
		{`{"name":"phone"}`, "", "unknown field", true},
	} {
		var got string
		var err error
		if tt.ref {
			got, err = parseDeviceRef([]byte(tt.body))
		} else {
			var role security.Role
			got, role, err = parseDeviceName([]byte(tt.body))
			if err == nil && role != security.DefaultRole {
				got += " " + role.String()
			}
		}
		switch {
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("%s: %q, %v; want %q", tt.body, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: %q, %v; want an error saying %q", tt.body, got, err, tt.wantErr)
		}
	}
}

// FuzzParseDeviceBodies: the two bodies' parsers never panic, and a name
// they take is one the store takes (shown on the board and a terminal, it
// holds nothing that could act on either).
func FuzzParseDeviceBodies(f *testing.F) {
	f.Add(`{"name":"phone"}`)                 // Add a device
	f.Add(`{"device":"0123456789abcdef"}`)    // Revoke by id
	f.Add(`{"name":"ph\u202eone"}`)           // a bidi override
	f.Add(`{"name":"a"} {"name":"b"}`)        // two objects
	f.Add(`{"name":null}`)                    // null
	f.Add(`{"name":"phone","role":"launch"}`) // Add a device of a role
	f.Add(`{"device":"phone","role":"view"}`) // a role changed
	f.Add(`{"device":"phone","role":"root"}`) // no role
	f.Fuzz(func(t *testing.T, body string) {
		withRole := func(parse func([]byte) (string, security.Role, error)) func([]byte) (string, error) {
			return func(b []byte) (string, error) {
				name, role, err := parse(b)
				if err == nil && !role.Valid() {
					t.Fatalf("%q taken with no role", b)
				}
				return name, err
			}
		}
		for _, parse := range []func([]byte) (string, error){withRole(parseDeviceName), parseDeviceRef, withRole(parseDeviceRole)} {
			got, err := parse([]byte(body))
			if err != nil {
				continue
			}
			if cerr := security.CheckDeviceName(got); cerr != nil {
				t.Fatalf("%q taken as %q, which the store refuses: %v", body, got, cerr)
			}
		}
	})
}
