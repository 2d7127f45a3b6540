package jsonx

import (
	"bytes"
	"encoding/json"
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

func TestDuplicate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		fold Fold
		key  string // "" for none
	}{
		{`{"a":1,"b":2}`, Exact, ""},
		{`{"a":1,"a":2}`, Exact, "a"},
		{`{"a":1,"\u0061":2}`, Exact, "a"},                 // the same key, escaped
		{`{"a":1,"A":2}`, Exact, ""},                       // two keys to a map
		{`{"a":1,"A":2}`, CaseFold, "A"},                   // one field to a struct
		{`{"s":1,"ſ":2}`, CaseFold, "ſ"},                   // as encoding/json folds
		{`{"o":{"x":1,"x":2}}`, Exact, "x"},                // at depth
		{`[{"x":1},{"x":2}]`, Exact, ""},                   // two objects, one key each
		{`{"x":{"x":1},"y":"x","z":["x","x"]}`, Exact, ""}, // values are not keys
		{`{"a":"\"a\"","a\"":1,"a":2}`, Exact, "a"},        // quotes inside strings
		{`{"a":1,"b":{"c":1},"a":3}`, Exact, "a"},          // after a nested object
		{`{"a":1,`, Exact, ""},                             // not JSON: no panic
	} {
		err := Duplicate([]byte(tc.in), tc.fold)
		var de *DuplicateError
		switch {
		case tc.key == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.key != "" && (!errors.As(err, &de) || de.Key != tc.key || !errors.Is(err, ErrDuplicate)):
			t.Errorf("%s: %v, want the key %q", tc.in, err, tc.key)
		}
	}
	// DecodeOne refuses them, whatever v is.
	var v struct {
		SessionID string `json:"sessionId"`
	}
	for _, in := range []string{`{"sessionId":"a","sessionId":"b"}`, `{"sessionId":"a","SessionID":"b"}`} {
		if err := DecodeOne([]byte(in), &v, Options{Strict: true}); !errors.Is(err, ErrDuplicate) || !strings.Contains(Reason(err), "given twice") {
			t.Errorf("%s: %v, want a duplicate key refused", in, err)
		}
	}
}

// FuzzDuplicate: on any input Duplicate never panics, and on JSON it finds
// a duplicate exactly when decoding into a map loses a member.
func FuzzDuplicate(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"a":2}`,           // the plain duplicate
		`{"a":{"b":[1,{"b":2}]}}`, // nested, none
		`{"\u00e9":1,"é":2}`,      // escaped and not
		`{"a":"}","a":1}`,         // a brace inside a string
		`[{"a":1},{"a":1}]`,       // siblings
		`{"a`,                     // cut short
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Duplicate([]byte(s), Exact)
		_ = Duplicate([]byte(s), CaseFold)
		if !json.Valid([]byte(s)) {
			return
		}
		if err != nil && !errors.Is(err, ErrDuplicate) {
			t.Fatalf("%v", err)
		}
		if (err != nil) != losesMember([]byte(s)) {
			t.Fatalf("%q: Duplicate says %v; a map decode disagrees", s, err)
		}
	})
}

// losesMember reports whether some object of v has fewer members decoded
// than it gives, counted with the tokenizer: the independent oracle.
func losesMember(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj   bool
		key   bool
		names map[string]bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, ok := tok.(string); ok && top != nil && top.obj && top.key {
			if top.names[k] {
				return true
			}
			top.names[k] = true
			top.key = false
			continue
		}
		if top != nil && top.obj {
			top.key = true // after a value, a key
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, key: true, names: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].key = true
			}
		}
	}
}
