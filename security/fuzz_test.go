package security

import (
	"strings"
	"testing"
)

func TestIsJSON(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                 true,
		"application/json; charset=utf-8":  true,
		"Application/JSON":                 true,
		" application/json ;charset=utf-8": true,
		"":                                 false,
		"application/jsonx":                false,
		"application/json-patch+json":      false,
		"text/plain":                       false,
		"application/json; charset":        false, // a malformed parameter
		"application/json;;":               false,
		"application/json, text/html":      false,
	} {
		if got := IsJSON(ct); got != want {
			t.Errorf("IsJSON(%q) = %v, want %v", ct, got, want)
		}
	}
}

// FuzzIsJSON: IsJSON never panics, and when it says yes the media type (the
// header up to its first ";", trimmed, ASCII case folded) is exactly
// application/json: no prefix, suffix or look-alike slips through.
func FuzzIsJSON(f *testing.F) {
	for _, s := range []string{
		"application/json",                  // the one type allowed
		"application/json; charset=utf-8",   // with a parameter
		"APPLICATION/JSON;CHARSET=UTF-8",    // case-insensitive type and parameter
		"application/jsonx",                 // a longer subtype (a prefix match would pass it)
		"application/json-patch+json",       // a structured-syntax suffix
		"application/json; charset=\"a;b\"", // a quoted ";" in a parameter
		"application/json;a*0=x;a*1=y",      // RFC 2231 continuations
		"text/plain",                        // the CORS-simple type
		"multipart/form-data; boundary=x",   // a form
		"application/json\x00",              // a NUL
		"applicati\u0130on/json",            // a Unicode letter that lowercases to ASCII-ish
		"application/\u017fjson",            // long s, which case-folds to s
		"",                                  // no header
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ct string) {
		if !IsJSON(ct) {
			return
		}
		base, _, _ := strings.Cut(ct, ";")
		if got := asciiLower(strings.TrimSpace(base)); got != "application/json" {
			t.Fatalf("IsJSON(%q) = true, but its media type is %q", ct, got)
		}
	})
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
