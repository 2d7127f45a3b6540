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
		{`{"name":7}`, "", `want {"name": "NAME"}`, false},
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
			got, err = parseDeviceName([]byte(tt.body))
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
	f.Add(`{"name":"phone"}`)              // Add a device
	f.Add(`{"device":"0123456789abcdef"}`) // Revoke by id
	f.Add(`{"name":"ph\u202eone"}`)        // a bidi override
	f.Add(`{"name":"a"} {"name":"b"}`)     // two objects
	f.Add(`{"name":null}`)                 // null
	f.Fuzz(func(t *testing.T, body string) {
		for _, parse := range []func([]byte) (string, error){parseDeviceName, parseDeviceRef} {
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
