package settings

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// FuzzParseRequest feeds POST /agents-notch/settings bodies to ParseRequest.
// It must never panic; a refused body returns no change at all; an accepted
// one is a single JSON object and only carries known keys whose values are
// in range and re-parse to themselves (what the store writes is final).
func FuzzParseRequest(f *testing.F) {
	seeds := []string{
		`{"scale": 1.5}`,                       // one key, the pane's usual click
		`{"scale": 9, "holdMs": 1234.5}`,       // clamp and integer rounding
		`{"maxRows": "7", "screen": 2}`,        // numeric string; screen as a number
		`{"screen": "0"}`,                      // display 0 does not exist
		`{"scale": null, "alerts": "off"}`,     // null clears one key
		`{"reset": true}`,                      // reset-all
		`{"reset": true, "motion": "on"}`,      // reset, then set
		`{"reset": "yes"}`,                     // reset of the wrong type
		`{"colour": "teal", "scale": 1}`,       // unknown key refused by name
		`{"holdMs": 1e999}`,                    // non-finite after parsing
		`{"opacity": -0}`,                      // negative zero clamps to the floor
		`{"ghostOpacity": 0.6000000000000001}`, // just over the top
		`{"showDone": "true"}`,                 // boolean as a string
		`{"hoverMode": "Open"}`,                // enums are exact
		`{}`,                                   // names nothing
		``,                                     // empty body
		`null`,                                 // JSON null
		`[{"scale": 1}]`,                       // an array
		`{"scale": 1} {"scale": 2}`,            // two objects
		`{"scale": 1}}`,                        // a stray brace after the object
		`{"scale": 1, "scale": "x"}`,           // a duplicate key, last one wins
		"{\"anchor\": \"top-left\\u0000\"}",    // a NUL inside a choice
		`{"screen": 64.0000000001}`,            // almost a whole display number
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := ParseRequest(body)
		if err != nil {
			if _, ok := err.(*RequestError); !ok {
				t.Fatalf("error %T, want *RequestError", err)
			}
			if c.Reset || c.Clear != nil || c.Set != nil {
				t.Fatalf("refused body returned a change: %#v", c)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted a body that is not one JSON value: %q", body)
		}
		if !c.Reset && len(c.Set) == 0 && len(c.Clear) == 0 {
			t.Fatalf("accepted a body that changes nothing: %q", body)
		}
		for k, v := range c.Set {
			checkInRange(t, k, v)
		}
		for _, k := range c.Clear {
			if !IsKey(k) {
				t.Fatalf("clears unknown key %q", k)
			}
			if _, both := c.Set[k]; both {
				t.Fatalf("%s both set and cleared", k)
			}
		}
	})
}

// FuzzDecodePane feeds settings.json contents to DecodePane. It must never
// panic; every value in the layer is in range; a non-blank file that is not
// valid JSON is reported.
func FuzzDecodePane(f *testing.F) {
	seeds := []string{
		`{"scale": 1.5, "alerts": "off"}`,           // a clean file
		"{\n  \"holdMs\": 4000\n}\n",                // as the store writes it
		`{"scale": 99, "opacity": -1}`,              // out of range: clamps
		`{"maxRows": 6.5, "screen": 3}`,             // rounding; screen number
		`{"scale": "huge", "holdMs": 2000}`,         // one bad value among good
		`{"colour": "teal"}`,                        // unknown key
		`{"scale": 1.5, "opacity"`,                  // truncated by a crash
		`{"scale": 1.5}}`,                           // stray brace
		`{"scale": 1.5} {"scale": 2}`,               // two objects
		`[1, 2]`,                                    // an array
		`null`,                                      // null
		``,                                          // empty file
		"\ufeff{\"scale\": 1.5}",                    // a BOM from an editor
		`{"holdMs": 1e400, "ghostOpacity": 1e-400}`, // overflow, underflow
		`{"screen": 1e5}`,                           // a number too big for a display
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, warns := DecodePane("settings.json", data)
		for k, v := range p {
			checkInRange(t, k, v)
		}
		// A blank file (bytes.TrimSpace's notion) is an empty layer.
		blank := len(bytes.TrimSpace(data)) == 0
		if !blank && !json.Valid(data) && len(warns) == 0 {
			t.Fatalf("invalid JSON %q read without a warning as %v", data, p)
		}
		if !json.Valid(data) && len(p) > 0 {
			t.Fatalf("invalid JSON %q still yielded %v", data, p)
		}
	})
}

// FuzzParsePatch feeds cordis.patch.yml contents to parsePatch and buildRow.
// They must never panic, and the row that comes out is within range: config
// values clamped, budget null or a positive whole number, hotAt a fraction,
// retire route or timer.
func FuzzParsePatch(f *testing.F) {
	seeds := []string{
		"- id: agents-notch\n  config:\n    scale: 1.5\n    motion: off\n",                              // the id form
		"- insert:\n    id: agents-notch\n    config: {maxRows: 8}\n",                                   // insert mapping
		"- insert:\n  - id: clock\n  - id: agents-notch\n    config: {holdMs: 99999}\n",                 // insert list, clamp
		"- id: agents-notch\n  config: {scale: 1.5}\n- id: agents-notch\n  config: {}\n",                // last wins wholesale
		"- id: agents-notch\n  config:\n    context: {budget: 200000, hotAt: 0.7}\n    retire: timer\n", // context, retire
		"- id: agents-notch\n  config:\n    context: {budget: 1.5, hotAt: 2}\n    retire: now\n",        // bad context, retire
		"- id: agents-notch\n  config:\n    context: {budget: 1e300, hotAt: .nan}\n",                    // huge budget, NaN
		"- id: agents-notch\n  config: [1, 2]\n",                                                        // config not a mapping
		"- id: agents-notch\n  config: {1: 2, scale: 3}\n",                                              // a non-string key
		"- &r {id: agents-notch, config: {scale: 1.2}}\n- *r\n",                                         // anchors and aliases
		"- id: agents-notch\n  config:\n    <<: {scale: 1.7}\n    alerts: off\n",                        // merge key
		"- id: agents-notch\n  config: {screen: 0, maxRows: .inf, opacity: -.inf}\n",                    // bad numbers
		"- id: agents-notch\n  config: {\"\\0\": 1}\n",                                                  // the NUL key
		"id: agents-notch\n", // not a list
		"",                   // empty
		"# comment\n",        // comment only
		"- id: agents-notch\n  config: {scale: [\n", // broken
		// issue 50 item 5: a row inserted into a group row, and a name that
		// must match the inserted row's or the patch is skipped.
		"- id: desktop\n  insert:\n    - id: agents-notch\n      name: dsh-agents-notch/host\n      config: {scale: 1.5}\n",
		"- id: desktop\n  insert: {id: agents-notch, name: n, config: {scale: 1.75}}\n- id: agents-notch\n  name: other\n  config: {scale: 2}\n",
		"- id: desktop\n  insert:\n    - id: inner\n      insert: [{id: agents-notch, config: {maxRows: 4}}]\n",
		"- insert: {id: agents-notch, name: n}\n- id: agents-notch\n  name: n\n  config: {opacity: 0.5}\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := parsePatch(data, DefaultRowID)
		if err != nil {
			return
		}
		r, _ := buildRow("cordis.patch.yml", e)
		for k, v := range r.Config {
			checkInRange(t, k, v)
		}
		if b := r.Context.Budget; b != nil && *b < 1 {
			t.Fatalf("budget %d", *b)
		}
		if h := r.Context.HotAt; math.IsNaN(h) || h <= 0 || h > 1 {
			t.Fatalf("hotAt %v", h)
		}
		if r.Retire != "route" && r.Retire != "timer" {
			t.Fatalf("retire %q", r.Retire)
		}
		if !e.found && (e.hasConfig || len(r.Config) > 0) {
			t.Fatalf("a config without the row: %+v", e)
		}
	})
}
