package settings

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseRequest(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		want    Change
		unknown []string          // refused by name
		invalid map[string]string // key → a word the reason must contain
		refused bool              // refused for its shape
	}{
		{name: "one key", body: `{"scale": 1.5}`, want: Change{Set: Partial{"scale": 1.5}}},
		{name: "clamped", body: `{"scale": 9}`, want: Change{Set: Partial{"scale": 2.0}}},
		{name: "int key from a float", body: `{"holdMs": 1234.5}`, want: Change{Set: Partial{"holdMs": 1235}}},
		{name: "numeric string", body: `{"maxRows": "7"}`, want: Change{Set: Partial{"maxRows": 7}}},
		{name: "screen number", body: `{"screen": 2}`, want: Change{Set: Partial{"screen": "2"}}},
		{name: "screen string", body: `{"screen": "cursor"}`, want: Change{Set: Partial{"screen": "cursor"}}},
		{name: "bool", body: `{"showDone": false}`, want: Change{Set: Partial{"showDone": false}}},
		{name: "several keys", body: `{"alerts": "off", "motion": "on"}`, want: Change{Set: Partial{"alerts": "off", "motion": "on"}}},
		{name: "null clears", body: `{"scale": null}`, want: Change{Clear: []string{"scale"}, Set: Partial{}}},
		{name: "reset", body: `{"reset": true}`, want: Change{Reset: true, Set: Partial{}}},
		{name: "reset and set", body: `{"reset": true, "alerts": "off"}`, want: Change{Reset: true, Set: Partial{"alerts": "off"}}},
		{name: "surrounding whitespace", body: " \n{\"scale\": 1.5}\n\n", want: Change{Set: Partial{"scale": 1.5}}},

		{name: "unknown key", body: `{"colour": "teal"}`, unknown: []string{"colour"}},
		{name: "unknown with good keys", body: `{"scale": 1.5, "Scale": 1.5, "zoom": 2}`, unknown: []string{"Scale", "zoom"}},
		{name: "unknown and invalid", body: `{"bogus": 1, "scale": "x"}`, unknown: []string{"bogus"}, invalid: map[string]string{"scale": "number"}},
		{name: "invalid value", body: `{"scale": "big"}`, invalid: map[string]string{"scale": "number"}},
		{name: "one bad of two", body: `{"opacity": 0.5, "anchor": "middle"}`, invalid: map[string]string{"anchor": "top-center"}},
		{name: "screen zero", body: `{"screen": "0"}`, invalid: map[string]string{"screen": "display"}},
		{name: "non-finite", body: `{"holdMs": 1e999}`, invalid: map[string]string{"holdMs": "number"}},
		{name: "bool as number", body: `{"showDone": 0}`, invalid: map[string]string{"showDone": "true or false"}},
		{name: "reset not a bool", body: `{"reset": "yes"}`, invalid: map[string]string{"reset": "true or false"}},
		{name: "reset with a bad key", body: `{"reset": true, "maxRows": "lots"}`, invalid: map[string]string{"maxRows": "number"}},

		{name: "empty", body: ``, refused: true},
		{name: "blank", body: " \n\t", refused: true},
		{name: "empty object", body: `{}`, refused: true},
		{name: "reset false", body: `{"reset": false}`, refused: true},
		{name: "null", body: `null`, refused: true},
		{name: "array", body: `[{"scale": 1.5}]`, refused: true},
		{name: "empty array", body: `[]`, refused: true},
		{name: "string", body: `"scale"`, refused: true},
		{name: "number", body: `1.5`, refused: true},
		{name: "truncated", body: `{"scale": 1.5`, refused: true},
		{name: "trailing comma", body: `{"scale": 1.5,}`, refused: true},
		{name: "NaN literal", body: `{"scale": NaN}`, refused: true},
		{name: "two objects", body: `{"scale": 1.5} {"scale": 1.9}`, refused: true},
		{name: "trailing garbage", body: `{"scale": 1.5} x`, refused: true},
		{name: "trailing brace", body: `{"scale": 1.5}}`, refused: true},
		{name: "trailing bracket", body: `{"scale": 1.5}]`, refused: true},
		{name: "trailing null", body: `{"scale": 1.5} null`, refused: true},
		{name: "form encoded", body: `scale=1.5`, refused: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseRequest([]byte(c.body))
			wantErr := c.refused || c.unknown != nil || c.invalid != nil
			if !wantErr {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Fatalf("Change = %#v, want %#v", got, c.want)
				}
				return
			}
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("accepted %q as %#v (err %v); want a *RequestError", c.body, got, err)
			}
			if !reflect.DeepEqual(got, Change{}) {
				t.Errorf("a refused body still returned a change: %#v", got)
			}
			if re.Message == "" {
				t.Errorf("refusal without a message")
			}
			if !slices.Equal(re.Unknown, c.unknown) {
				t.Errorf("Unknown = %q, want %q", re.Unknown, c.unknown)
			}
			for _, k := range c.unknown {
				if !strings.Contains(re.Message, k) {
					t.Errorf("message %q does not name %q", re.Message, k)
				}
			}
			if len(re.Invalid) != len(c.invalid) {
				t.Errorf("Invalid = %v, want keys of %v", re.Invalid, c.invalid)
			}
			for k, word := range c.invalid {
				if !strings.Contains(re.Invalid[k], word) {
					t.Errorf("Invalid[%s] = %q, want a reason mentioning %q", k, re.Invalid[k], word)
				}
			}
		})
	}
}

// A refused POST writes nothing: the file's bytes are exactly as before, and
// the good keys in a refused body do not slip through.
func TestRefusedRequestWritesNothing(t *testing.T) {
	f := newFixture(t)
	svc := f.service(t)
	if _, err := post(t, svc, `{"scale": 1.5, "alerts": "off"}`); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, f.pane)
	for _, body := range []string{
		`{"opacity": 0.5, "colour": "teal"}`,
		`{"opacity": 0.5, "maxRows": "lots"}`,
		`{"reset": true, "bogus": 1}`,
		`{"reset": true, "holdMs": "soon"}`,
		`{"scale": null, "nope": null}`,
		`{"opacity": 0.5} trailing`,
		`{"opacity": 0.5}}`,
		``, `{}`, `null`, `[]`,
	} {
		if _, err := post(t, svc, body); err == nil {
			t.Errorf("POST %q accepted", body)
		}
		if got := readFile(t, f.pane); got != before {
			t.Fatalf("POST %q changed the file:\n%s\nwas\n%s", body, got, before)
		}
		if v := svc.View(); v.Settings.Opacity != Defaults.Opacity || v.Settings.Scale != 1.5 || v.Settings.Alerts != "off" {
			t.Fatalf("POST %q changed the effective settings: %+v", body, v.Settings)
		}
	}
}
