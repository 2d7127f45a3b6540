package web

import (
	"strings"
	"testing"

	"github.com/notch-web/notch-web/host/mesh"
)

func TestParseRevokeRequest(t *testing.T) {
	tests := []struct{ body, want, err string }{
		{`{"machine":"build-box"}`, "build-box", ""},
		{`{"machine":" laptop "}`, "laptop", ""},
		{`{"machine":""}`, "", "invalid machine name"},
		{`{"machine":"a.b"}`, "", "invalid machine name"},
		{`{"machine":"x","y":1}`, "", "unknown field"},
		{`["x"]`, "", "want {"},
		{``, "", "want {"},
	}
	for _, tt := range tests {
		got, err := parseRevokeRequest([]byte(tt.body))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %q, %v; want an error saying %q", tt.body, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.body, got, err, tt.want)
		}
	}
}

func FuzzParseRevokeRequest(f *testing.F) {
	f.Add(`{"machine":"build-box"}`) // a good request
	f.Add(`{"machine":"a*"}`)        // a wildcard: never a subject token
	f.Add(`{"machine":1}`)           // not a string
	f.Fuzz(func(t *testing.T, body string) {
		name, err := parseRevokeRequest([]byte(body))
		if err == nil && mesh.CheckName(name) != nil {
			t.Fatalf("accepted %q, which is no machine name", name)
		}
	})
}
