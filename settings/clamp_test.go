package settings

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"sort"
	"testing"
)

// refuse marks a table row whose raw value must be refused.
type refuse struct{}

func TestParseValue(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	type tc struct {
		raw  any
		want any // refuse{} when the value must not parse
	}
	// Every key gets: in range, below, above, both boundaries, the wrong
	// type, numeric strings, and the JSON (json.Number) and YAML (int)
	// shapes its values arrive in.
	cases := map[string][]tc{
		"scale": {
			{1.5, 1.5}, {0.5, 0.75}, {3.0, 2.0}, {0.75, 0.75}, {2.0, 2.0}, {-1.0, 0.75},
			{1, 1.0}, {int64(2), 2.0}, {uint64(7), 2.0}, {json.Number("1.25"), 1.25}, {json.Number("9"), 2.0},
			{"1.5", 1.5}, {" 1.25 ", 1.25}, {"1e0", 1.0}, {"5", 2.0},
			{"big", refuse{}}, {"", refuse{}}, {"1.5x", refuse{}}, {true, refuse{}}, {nil, refuse{}},
			{[]any{1.0}, refuse{}}, {map[string]any{"v": 1.0}, refuse{}},
			{nan, refuse{}}, {inf, refuse{}}, {-inf, refuse{}}, {"NaN", refuse{}}, {"Inf", refuse{}}, {"-Infinity", refuse{}},
			{json.Number("1e400"), refuse{}}, {json.Number("x"), refuse{}},
		},
		"opacity": {
			{0.5, 0.5}, {0.1, 0.35}, {1.5, 1.0}, {0.35, 0.35}, {1.0, 1.0}, {0, 0.35}, {1, 1.0},
			{"0.8", 0.8}, {json.Number("0.9"), 0.9},
			{"opaque", refuse{}}, {false, refuse{}}, {nan, refuse{}}, {inf, refuse{}},
		},
		"ghostOpacity": {
			{0.3, 0.3}, {0.01, 0.05}, {0.9, 0.6}, {0.05, 0.05}, {0.6, 0.6}, {1, 0.6}, {0, 0.05},
			{"0.2", 0.2}, {json.Number("0.25"), 0.25},
			{"faint", refuse{}}, {true, refuse{}}, {nan, refuse{}}, {-inf, refuse{}},
		},
		"maxRows": {
			{6, 6}, {2, 3}, {11, 10}, {3, 3}, {10, 10}, {-4, 3}, {1000000, 10},
			// floats round to the nearest row, after the clamp
			{6.4, 6}, {6.5, 7}, {6.6, 7}, {2.6, 3}, {9.5, 10}, {10.4, 10}, {3.0, 3},
			{"7", 7}, {"7.5", 8}, {json.Number("8"), 8}, {json.Number("4.49"), 4}, {int64(5), 5}, {uint64(9), 9},
			{"many", refuse{}}, {true, refuse{}}, {nil, refuse{}}, {nan, refuse{}}, {inf, refuse{}}, {"NaN", refuse{}},
		},
		"holdMs": {
			{1600, 1600}, {100, 500}, {9000, 4000}, {500, 500}, {4000, 4000},
			{1234.4, 1234}, {1234.5, 1235}, {499.6, 500}, {4000.4, 4000},
			{"2000", 2000}, {json.Number("2500"), 2500}, {json.Number("1e3"), 1000},
			{"long", refuse{}}, {false, refuse{}}, {nan, refuse{}}, {-inf, refuse{}},
		},
		"screen": {
			{"primary", "primary"}, {"cursor", "cursor"}, {"1", "1"}, {"2", "2"}, {"64", "64"},
			{1, "1"}, {64, "64"}, {2.0, "2"}, {int64(3), "3"}, {uint64(4), "4"}, {json.Number("5"), "5"}, {json.Number("1e1"), "10"},
			{"0", refuse{}}, {0, refuse{}}, {-1, refuse{}}, {"-1", refuse{}}, {"65", refuse{}}, {65, refuse{}},
			{2.5, refuse{}}, {"2.0", refuse{}}, {"02", refuse{}}, {"+2", refuse{}}, {"", refuse{}},
			{"Primary", refuse{}}, {"CURSOR", refuse{}}, {"secondary", refuse{}}, {true, refuse{}}, {nil, refuse{}},
			{nan, refuse{}}, {inf, refuse{}}, {1e300, refuse{}}, {[]any{"1"}, refuse{}},
		},
		"anchor": {
			{"top-center", "top-center"}, {"top-left", "top-left"}, {"top-right", "top-right"},
			{"Top-Left", refuse{}}, {"top", refuse{}}, {"top-centre", refuse{}}, {"top-center-x", refuse{}},
			{"bottom-center", refuse{}}, {"", refuse{}}, {1, refuse{}}, {nil, refuse{}},
		},
		"motion": {
			{"auto", "auto"}, {"on", "on"}, {"off", "off"},
			{"Off", refuse{}}, {"none", refuse{}}, {false, refuse{}}, {true, refuse{}}, {0, refuse{}},
		},
		"hoverMode": {
			{"ghost", "ghost"}, {"open", "open"},
			{"Ghost", refuse{}}, {"hover", refuse{}}, {"", refuse{}}, {true, refuse{}},
		},
		"alerts": {
			{"all", "all"}, {"needs-you", "needs-you"}, {"off", "off"},
			{"All", refuse{}}, {"needs you", refuse{}}, {"none", refuse{}}, {false, refuse{}}, {nil, refuse{}},
		},
	}
	for _, k := range []string{"hideFullscreen", "showProject", "showDone", "topEdgeOpens"} {
		cases[k] = []tc{
			{true, true}, {false, false}, {"true", true}, {"false", false},
			{"TRUE", refuse{}}, {"yes", refuse{}}, {"on", refuse{}}, {1, refuse{}}, {0, refuse{}},
			{nil, refuse{}}, {"", refuse{}}, {json.Number("1"), refuse{}},
		}
	}
	if len(cases) != len(Keys) {
		t.Fatalf("table covers %d keys, want all %d", len(cases), len(Keys))
	}
	for _, key := range Keys {
		for _, c := range cases[key] {
			got, err := ParseValue(key, c.raw)
			if _, bad := c.want.(refuse); bad {
				var ve *ValueError
				if !errors.As(err, &ve) || ve.Key != key || ve.Reason == "" {
					t.Errorf("ParseValue(%s, %#v) = %#v, %v; want a *ValueError for %s with a reason", key, c.raw, got, err, key)
				}
				continue
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Errorf("ParseValue(%s, %#v) = %#v, %v; want %#v", key, c.raw, got, err, c.want)
				continue
			}
			// The Go type is the Settings field's: apply must accept it.
			var s Settings
			s.apply(key, got)
			if !reflect.DeepEqual(s.Get(key), c.want) {
				t.Errorf("apply(%s, %#v) then Get = %#v", key, got, s.Get(key))
			}
		}
	}
}

func TestParseValueUnknownKey(t *testing.T) {
	for _, k := range []string{"", "Scale", "maxrows", "reset", "context", "retire", "scale "} {
		if _, err := ParseValue(k, 1.0); !errors.Is(err, ErrUnknownKey) {
			t.Errorf("ParseValue(%q) error = %v, want ErrUnknownKey", k, err)
		}
	}
}

// The defaults are themselves valid values: a clamp must not move them.
func TestDefaultsAreFixedPoints(t *testing.T) {
	if len(Keys) != 14 {
		t.Fatalf("%d keys, the contract has 14", len(Keys))
	}
	for _, k := range Keys {
		checkInRange(t, k, Defaults.Get(k))
	}
	// Keys and the JSON encoding of Settings name the same fourteen fields.
	b, _ := json.Marshal(Defaults)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	keys := append([]string(nil), Keys...)
	sort.Strings(keys)
	if !reflect.DeepEqual(names, keys) {
		t.Errorf("Settings encodes %v, Keys are %v", names, keys)
	}
}

func TestClampReportsAndDrops(t *testing.T) {
	p, w := Clamp("f.yml", map[string]any{
		"scale":   9,       // clamps
		"maxRows": "lots",  // refused: warned, left out
		"bogus":   1,       // unknown: warned, left out
		"motion":  "off",   // kept
		"screen":  0,       // "0" is no display
		"holdMs":  1234.56, // rounds
	})
	want := Partial{"scale": 2.0, "motion": "off", "holdMs": 1235}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("Clamp = %#v, want %#v", p, want)
	}
	// scale 9 is used, clamped, and said so.
	for _, k := range []string{"maxRows", "bogus", "screen", "scale"} {
		if !hasWarning(w, "f.yml", k) {
			t.Errorf("no warning for %s in %+v", k, w)
		}
	}
	if len(w) != 4 {
		t.Errorf("%d warnings, want 4: %+v", len(w), w)
	}
}

// layerCase gives, for one key, values for both files: good ones (distinct
// from each other and from the default) and ones that do not parse.
type layerCase struct {
	key               string
	rowYAML, badYAML  string // YAML scalars
	rowWant           any
	paneJSON, badJSON string // JSON values
	paneWant          any
}

var layerCases = []layerCase{
	{"scale", "1.5", "big", 1.5, "1.75", `"big"`, 1.75},
	{"screen", `"2"`, "0", "2", `"cursor"`, `"0"`, "cursor"},
	{"anchor", "top-left", "middle", "top-left", `"top-right"`, `"middle"`, "top-right"},
	{"maxRows", "8", "many", 8, "4", `"many"`, 4},
	{"hideFullscreen", "false", "maybe", false, "true", `"maybe"`, true},
	{"opacity", "0.5", "clear", 0.5, "0.8", `[0.8]`, 0.8},
	{"motion", "off", "sometimes", "off", `"on"`, `"sometimes"`, "on"},
	{"showProject", "false", "nah", false, "true", `1`, true},
	{"showDone", "false", "perhaps", false, "true", `"perhaps"`, true},
	{"hoverMode", "open", "hover", "open", `"ghost"`, `"hover"`, "ghost"},
	{"holdMs", "2500", ".nan", 2500, "3000", `"forever"`, 3000},
	{"topEdgeOpens", "false", "[]", false, "true", `{}`, true},
	{"ghostOpacity", "0.3", ".inf", 0.3, "0.4", `"x"`, 0.4},
	{"alerts", "needs-you", "loud", "needs-you", `"off"`, `"loud"`, "off"},
}

// TestThreeLayers drives every key through real files: a value that does not
// parse falls back to the layer beneath (the row, when the row has one; never
// straight to the default), and Source names the layer that decided.
func TestThreeLayers(t *testing.T) {
	if len(layerCases) != len(Keys) {
		t.Fatalf("layerCases covers %d keys, want %d", len(layerCases), len(Keys))
	}
	type layer int
	const (
		absent layer = iota
		good
		bad
	)
	scenarios := []struct {
		name      string
		row, pane layer
		want      string // source
	}{
		{"defaults only", absent, absent, SourceDefault},
		{"row", good, absent, SourceRow},
		{"pane beats row", good, good, SourcePane},
		{"pane alone", absent, good, SourcePane},
		{"bad pane falls back to the row", good, bad, SourceRow},
		{"bad row falls back to the default", bad, absent, SourceDefault},
		{"bad row under a good pane", bad, good, SourcePane},
		{"both bad", bad, bad, SourceDefault},
		{"bad pane, no row", absent, bad, SourceDefault},
	}
	for _, lc := range layerCases {
		for _, sc := range scenarios {
			t.Run(lc.key+"/"+sc.name, func(t *testing.T) {
				f := newFixture(t)
				// An unrelated key in both files keeps each layer non-empty, so
				// the fallback is per key and not per file.
				rowCfg := "alerts: off\n"
				if lc.key == "alerts" {
					rowCfg = "motion: on\n"
				}
				switch sc.row {
				case good:
					rowCfg += lc.key + ": " + lc.rowYAML + "\n"
				case bad:
					rowCfg += lc.key + ": " + lc.badYAML + "\n"
				}
				writeFile(t, f.patch, rowYAML(rowCfg))
				pane := `{"ghostOpacity": 0.5`
				if lc.key == "ghostOpacity" {
					pane = `{"holdMs": 700`
				}
				switch sc.pane {
				case good:
					pane += `, "` + lc.key + `": ` + lc.paneJSON
				case bad:
					pane += `, "` + lc.key + `": ` + lc.badJSON
				}
				writeFile(t, f.pane, pane+"}\n")

				v := f.service(t).View()
				var want any
				switch sc.want {
				case SourceDefault:
					want = Defaults.Get(lc.key)
				case SourceRow:
					want = lc.rowWant
				case SourcePane:
					want = lc.paneWant
				}
				if got := v.Settings.Get(lc.key); !reflect.DeepEqual(got, want) {
					t.Errorf("effective %s = %#v, want %#v (from the %s)", lc.key, got, want, sc.want)
				}
				if v.Source[lc.key] != sc.want {
					t.Errorf("Source[%s] = %q, want %q", lc.key, v.Source[lc.key], sc.want)
				}
				if got := hasWarning(v.Warnings, f.patch, lc.key); got != (sc.row == bad) {
					t.Errorf("row warning for %s: %v, want %v (%+v)", lc.key, got, sc.row == bad, v.Warnings)
				}
				if got := hasWarning(v.Warnings, f.pane, lc.key); got != (sc.pane == bad) {
					t.Errorf("pane warning for %s: %v, want %v (%+v)", lc.key, got, sc.pane == bad, v.Warnings)
				}
				if _, ok := v.Row[lc.key]; ok != (sc.row == good) {
					t.Errorf("row layer has %s: %v, want %v", lc.key, ok, sc.row == good)
				}
				if _, ok := v.Stored[lc.key]; ok != (sc.pane == good) {
					t.Errorf("pane layer has %s: %v, want %v", lc.key, ok, sc.pane == good)
				}
				// The unrelated keys were untouched by the bad value.
				other := "alerts"
				if lc.key == "alerts" {
					other = "motion"
				}
				if v.Source[other] != SourceRow {
					t.Errorf("Source[%s] = %q: a bad %s disturbed another key", other, v.Source[other], lc.key)
				}
			})
		}
	}
}

func TestComposeSources(t *testing.T) {
	s, src := Compose(Partial{"scale": 1.5, "maxRows": 8}, Partial{"maxRows": 4, "alerts": "off"})
	if s.Scale != 1.5 || s.MaxRows != 4 || s.Alerts != "off" || s.HoldMs != Defaults.HoldMs {
		t.Errorf("Compose = %+v", s)
	}
	want := map[string]string{"scale": SourceRow, "maxRows": SourcePane, "alerts": SourcePane, "holdMs": SourceDefault}
	for k, w := range want {
		if src[k] != w {
			t.Errorf("source[%s] = %q, want %q", k, src[k], w)
		}
	}
	if len(src) != len(Keys) {
		t.Errorf("%d sources, want one per key (%d)", len(src), len(Keys))
	}
}
