package web

import (
	"strings"
	"testing"
)

func TestParseSessionRequest(t *testing.T) {
	for _, tc := range []struct {
		body, id, err string
	}{
		{`{"sessionId":"a"}`, "a", ""},
		{` {"sessionId":" spaced "} `, "spaced", ""},
		{`{"sessionId":""}`, "", "1 to 200 bytes"},
		{`{"sessionId":"` + strings.Repeat("x", 201) + `"}`, "", "1 to 200 bytes"},
		{`{"sessionId":"a\rb"}`, "", "1 to 200 bytes"},
		{`{"sessionId":7}`, "", "want {"},
		{`{"sessionId":"a","x":1}`, "", "unknown field"},
		{`{"sessionId":"a"} {"sessionId":"b"}`, "", "trailing data"},
		{`[]`, "", "want {"},
		{`{}`, "", "1 to 200 bytes"},
	} {
		id, err := parseSessionRequest([]byte(tc.body))
		if id != tc.id || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("parseSessionRequest(%s) = %q, %v; want %q, %q", tc.body, id, err, tc.id, tc.err)
		}
	}
}

func TestParseWindowRequest(t *testing.T) {
	for body, ok := range map[string]bool{
		`{"start":true}`:          true,
		`{"start":false}`:         false,
		`{}`:                      false,
		`{"start":"yes"}`:         false,
		`{"start":true,"stop":1}`: false,
		`{"start":true} trailing`: false,
		`true`:                    false,
	} {
		if err := parseWindowRequest([]byte(body)); (err == nil) != ok {
			t.Errorf("parseWindowRequest(%s) = %v, want ok=%v", body, err, ok)
		}
	}
}

// FuzzRequests: the small write bodies never panic, and what they accept is
// what their rules say.
func FuzzRequests(f *testing.F) {
	f.Add(`{"sessionId":"a"}`)
	f.Add(`{"start":true}`)
	f.Add(`{"sessionId":"\u0000"}`)
	f.Add(`{"sessionId":"a"}x`)
	f.Fuzz(func(t *testing.T, body string) {
		if id, err := parseSessionRequest([]byte(body)); err == nil {
			if id == "" || len(id) > 200 || strings.ContainsAny(id, "\r\n\x00") {
				t.Fatalf("accepted id %q", id)
			}
		}
		_ = parseWindowRequest([]byte(body))
	})
}
