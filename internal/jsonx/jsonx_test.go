package jsonx

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeOne(t *testing.T) {
	type obj struct {
		A int `json:"a"`
	}
	for _, tc := range []struct {
		name, in string
		o        Options
		reason   string // "" for success
		trailing bool
	}{
		{"one object", `{"a":1}`, Options{Strict: true}, "", false},
		{"spaces around", " \n{\"a\":1}\n ", Options{}, "", false},
		{"two objects", `{"a":1} {"a":2}`, Options{}, "", true},
		{"a stray brace", `{"a":1}}`, Options{}, "", true},
		{"text after", `{"a":1} x`, Options{}, "", true},
		{"unknown field, strict", `{"b":1}`, Options{Strict: true}, `unknown field "b"`, false},
		{"unknown field, lax", `{"b":1}`, Options{}, "", false},
		{"wrong kind", `{"a":"x"}`, Options{}, "a is a JSON string, want int", false},
		{"truncated", `{"a":`, Options{}, "truncated JSON", false},
		{"empty", ``, Options{}, "truncated JSON", false},
		{"syntax", `{"a":1,}`, Options{}, "at byte", false},
	} {
		var v obj
		err := DecodeOne([]byte(tc.in), &v, tc.o)
		switch {
		case tc.trailing:
			if !errors.Is(err, ErrTrailing) {
				t.Errorf("%s: err %v, want ErrTrailing", tc.name, err)
			}
		case tc.reason == "":
			if err != nil {
				t.Errorf("%s: err %v", tc.name, err)
			}
		default:
			if err == nil || !strings.Contains(Reason(err), tc.reason) {
				t.Errorf("%s: reason %q, want %q in it", tc.name, Reason(err), tc.reason)
			}
		}
	}
}

// FuzzDecodeOne: any input either decodes to one value or gives a reason
// without Go's "json: " prefix; it never panics.
func FuzzDecodeOne(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1}{}`, `[1]`, `"x"`, `null`, `{"a":`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v map[string]any
		if err := DecodeOne([]byte(s), &v, Options{UseNumber: true}); err != nil && strings.HasPrefix(Reason(err), "json: ") {
			t.Errorf("reason %q keeps the json: prefix", Reason(err))
		}
	})
}
