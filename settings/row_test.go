package settings

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func int64p(n int64) *int64 { return &n }

func TestParsePatchAndBuildRow(t *testing.T) {
	cases := []struct {
		name      string
		yaml      string
		found     bool
		config    Partial
		context   RowContext
		retire    string
		warnKeys  []string // keys of expected warnings
		wantError bool
	}{
		{
			name:   "id form",
			yaml:   "- id: agents-notch\n  config:\n    scale: 1.5\n    motion: off\n    screen: 2\n",
			found:  true,
			config: Partial{"scale": 1.5, "motion": "off", "screen": "2"},
		},
		{
			name:   "insert mapping",
			yaml:   "- insert:\n    id: agents-notch\n    config:\n      maxRows: 8\n",
			found:  true,
			config: Partial{"maxRows": 8},
		},
		{
			name:  "insert list among other rows",
			yaml:  "- insert:\n  - id: clock\n    config: {scale: 2}\n  - id: agents-notch\n    config: {holdMs: 2500}\n  - id: weather\n",
			found: true, config: Partial{"holdMs": 2500},
		},
		{
			name:  "other ids ignored",
			yaml:  "- id: agents-notch-2\n  config: {scale: 2}\n- insert: {id: clock, config: {scale: 2}}\n- id: Agents-Notch\n  config: {scale: 2}\n",
			found: false, config: Partial{},
		},
		{
			name:   "last entry wins wholesale, no deep merge",
			yaml:   "- id: agents-notch\n  config: {scale: 1.5, maxRows: 8, alerts: off}\n- id: agents-notch\n  config: {scale: 1.2}\n",
			found:  true,
			config: Partial{"scale": 1.2},
		},
		{
			name:   "a later insert replaces an earlier patch",
			yaml:   "- id: agents-notch\n  config: {scale: 1.5}\n- insert:\n    id: agents-notch\n    config: {opacity: 0.5}\n",
			found:  true,
			config: Partial{"opacity": 0.5},
		},
		{
			name:   "an entry without config leaves the earlier config",
			yaml:   "- id: agents-notch\n  config: {scale: 1.5}\n- id: agents-notch\n  enabled: true\n",
			found:  true,
			config: Partial{"scale": 1.5},
		},
		{
			name:   "an empty config clears it",
			yaml:   "- id: agents-notch\n  config: {scale: 1.5}\n- id: agents-notch\n  config: {}\n",
			found:  true,
			config: Partial{},
		},
		{
			name:   "row without config",
			yaml:   "- id: agents-notch\n",
			found:  true,
			config: Partial{},
		},
		{
			name:     "config that is not a mapping",
			yaml:     "- id: agents-notch\n  config: [scale, 1.5]\n",
			found:    true,
			config:   Partial{},
			warnKeys: []string{"config"},
		},
		{
			name:     "bad values and unknown keys are warned and left out",
			yaml:     "- id: agents-notch\n  config:\n    scale: huge\n    maxRows: 20\n    colour: teal\n    hideFullscreen: yes\n",
			found:    true,
			config:   Partial{"maxRows": 10},
			warnKeys: []string{"colour", "hideFullscreen", "maxRows", "scale"}, // maxRows 20 is clamped, and said so
		},
		{
			name:    "context budget and hotAt",
			yaml:    "- id: agents-notch\n  config:\n    context: {budget: 200000, hotAt: 0.7}\n    retire: timer\n",
			found:   true,
			config:  Partial{},
			context: RowContext{Budget: int64p(200000), HotAt: 0.7},
			retire:  "timer",
		},
		{
			name:    "hotAt 1 is a fraction",
			yaml:    "- id: agents-notch\n  config:\n    context: {budget: 1, hotAt: 1}\n",
			found:   true,
			config:  Partial{},
			context: RowContext{Budget: int64p(1), HotAt: 1},
		},
		{
			name:    "budget null is unknown",
			yaml:    "- id: agents-notch\n  config:\n    context: {budget: null}\n",
			found:   true,
			config:  Partial{},
			context: RowContext{HotAt: DefaultHotAt},
		},
		{
			name:     "budget zero is not a budget",
			yaml:     "- id: agents-notch\n  config:\n    context: {budget: 0, hotAt: 0}\n",
			found:    true,
			config:   Partial{},
			context:  RowContext{HotAt: DefaultHotAt},
			warnKeys: []string{"context.budget", "context.hotAt"},
		},
		{
			name:     "budget negative, hotAt above one",
			yaml:     "- id: agents-notch\n  config:\n    context: {budget: -5, hotAt: 1.5}\n",
			found:    true,
			config:   Partial{},
			context:  RowContext{HotAt: DefaultHotAt},
			warnKeys: []string{"context.budget", "context.hotAt"},
		},
		{
			name:     "budget fractional or words",
			yaml:     "- id: agents-notch\n  config:\n    context: {budget: 1000.5, hotAt: half}\n",
			found:    true,
			config:   Partial{},
			context:  RowContext{HotAt: DefaultHotAt},
			warnKeys: []string{"context.budget", "context.hotAt"},
		},
		{
			name:     "budget NaN",
			yaml:     "- id: agents-notch\n  config:\n    context: {budget: .nan, hotAt: .inf}\n",
			found:    true,
			config:   Partial{},
			context:  RowContext{HotAt: DefaultHotAt},
			warnKeys: []string{"context.budget", "context.hotAt"},
		},
		{
			name:     "context not a mapping",
			yaml:     "- id: agents-notch\n  config:\n    context: 200000\n",
			found:    true,
			config:   Partial{},
			context:  RowContext{HotAt: DefaultHotAt},
			warnKeys: []string{"context"},
		},
		{
			name:     "retire neither route nor timer",
			yaml:     "- id: agents-notch\n  config:\n    retire: later\n    scale: 1.1\n",
			found:    true,
			config:   Partial{"scale": 1.1},
			context:  RowContext{HotAt: DefaultHotAt},
			warnKeys: []string{"retire"},
		},
		{
			name:   "non-mapping items are skipped",
			yaml:   "- just a string\n- 42\n- id: agents-notch\n  config: {alerts: needs-you}\n",
			found:  true,
			config: Partial{"alerts": "needs-you"},
		},
		{name: "a mapping at the top", yaml: "id: agents-notch\nconfig: {scale: 1.5}\n", wantError: true},
		{name: "a scalar", yaml: "agents-notch\n", wantError: true},
		{name: "null", yaml: "~\n", wantError: true},
		{name: "empty", yaml: "", wantError: true},
		{name: "comments only", yaml: "# nothing yet\n# - id: agents-notch\n", wantError: true},
		{name: "broken YAML", yaml: "- id: agents-notch\n  config: {scale: 1.5\n", wantError: true},
		{name: "tab indentation", yaml: "- id: agents-notch\n\tconfig:\n", wantError: true},
		{name: "empty list", yaml: "[]\n", config: Partial{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := parsePatch([]byte(c.yaml), DefaultRowID)
			if c.wantError {
				if err == nil {
					t.Fatalf("parsePatch accepted %q: %+v", c.yaml, e)
				}
				return
			}
			if err != nil {
				t.Fatalf("parsePatch: %v", err)
			}
			r, warns := buildRow("p.yml", e)
			if r.Found != c.found {
				t.Errorf("Found = %v, want %v", r.Found, c.found)
			}
			if !reflect.DeepEqual(r.Config, c.config) {
				t.Errorf("Config = %#v, want %#v", r.Config, c.config)
			}
			wantCtx := c.context
			if wantCtx.HotAt == 0 {
				wantCtx.HotAt = DefaultHotAt
			}
			if !reflect.DeepEqual(r.Context, wantCtx) {
				t.Errorf("Context = %+v (budget %v), want %+v", r.Context, deref(r.Context.Budget), wantCtx)
			}
			wantRetire := c.retire
			if wantRetire == "" {
				wantRetire = "route"
			}
			if r.Retire != wantRetire {
				t.Errorf("Retire = %q, want %q", r.Retire, wantRetire)
			}
			var keys []string
			for _, w := range warns {
				if w.File != "p.yml" {
					t.Errorf("warning against %q, want p.yml", w.File)
				}
				keys = append(keys, w.Key)
			}
			if !reflect.DeepEqual(keys, c.warnKeys) {
				t.Errorf("warning keys = %q, want %q (%+v)", keys, c.warnKeys, warns)
			}
		})
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestParsePatchNotAPatch(t *testing.T) {
	for _, y := range []string{"id: agents-notch\n", "42\n", "~\n"} {
		if _, err := parsePatch([]byte(y), DefaultRowID); !errors.Is(err, ErrNotPatch) {
			t.Errorf("parsePatch(%q) = %v, want ErrNotPatch", y, err)
		}
	}
}

func TestRowIDOption(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.patch, "- id: agents-notch\n  config: {scale: 1.5}\n- id: notch-b\n  config: {scale: 1.9}\n")
	v := NewService(Options{PatchPaths: []string{f.patch}, PanePath: f.pane, RowID: "notch-b"}).View()
	if v.Settings.Scale != 1.9 {
		t.Errorf("row notch-b: scale %v, want 1.9", v.Settings.Scale)
	}
}

// Several patch files apply in layer order: the last file whose entry for
// the row carries a config replaces the earlier config wholesale.
func TestRowAcrossFiles(t *testing.T) {
	cases := []struct {
		name      string
		files     []string
		want      Partial
		found     bool
		wantWarns []string
	}{
		{
			name:  "later file replaces the config wholesale",
			files: []string{rowYAML("scale: 1.5\nmaxRows: 8"), rowYAML("holdMs: 2000")},
			want:  Partial{"holdMs": 2000}, found: true,
		},
		{
			name:  "later file's entry without config keeps the earlier one",
			files: []string{rowYAML("scale: 1.5\nmaxRows: 8"), "- id: agents-notch\n  enabled: false\n"},
			want:  Partial{"scale": 1.5, "maxRows": 8}, found: true,
		},
		{
			name:  "later file about other rows keeps the earlier one",
			files: []string{rowYAML("scale: 1.5"), "- id: clock\n  config: {scale: 2}\n"},
			want:  Partial{"scale": 1.5}, found: true,
		},
		{
			name:  "earlier file's config loses to a later insert",
			files: []string{rowYAML("scale: 1.5"), "- insert:\n  - id: agents-notch\n    config: {alerts: off}\n"},
			want:  Partial{"alerts": "off"}, found: true,
		},
		{
			name:  "three files, the middle wins when the last is silent",
			files: []string{rowYAML("scale: 1.1"), rowYAML("scale: 1.2"), "[]\n"},
			want:  Partial{"scale": 1.2}, found: true,
		},
		{
			name:      "no file names the row",
			files:     []string{"[]\n", "- id: clock\n"},
			want:      Partial{},
			wantWarns: []string{`no entry for row "agents-notch"; no rows with an id`, `no entry for row "agents-notch"; the file has: clock`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for i, y := range c.files {
				p := filepath.Join(dir, "patch"+string(rune('a'+i))+".yml")
				writeFile(t, p, y)
				paths = append(paths, p)
			}
			// A missing file in the list is simply absent, not an error.
			paths = append(paths, filepath.Join(dir, "missing.yml"))
			v := NewService(Options{PatchPaths: paths, PanePath: filepath.Join(dir, "settings.json")}).View()
			if !reflect.DeepEqual(v.Row, c.want) {
				t.Errorf("Row = %#v, want %#v", v.Row, c.want)
			}
			for _, k := range Keys {
				_, inRow := c.want[k]
				if want := map[bool]string{true: SourceRow, false: SourceDefault}[inRow]; v.Source[k] != want {
					t.Errorf("Source[%s] = %q, want %q", k, v.Source[k], want)
				}
			}
			var msgs []string
			for _, w := range v.Warnings {
				msgs = append(msgs, w.Message)
			}
			if !slices.Equal(msgs, c.wantWarns) {
				t.Errorf("warnings %q, want %q", msgs, c.wantWarns)
			}
		})
	}
}

// A YAML that fails to parse keeps the last good row and is reported; when
// it is fixed the warning goes away.
func TestBrokenYAMLKeepsLastGoodRow(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.patch, rowYAML("scale: 1.5\nalerts: off"))
	svc := f.service(t)
	if v := svc.View(); v.Settings.Scale != 1.5 || len(v.Warnings) != 0 {
		t.Fatalf("start: scale %v warnings %+v", v.Settings.Scale, v.Warnings)
	}
	for _, broken := range []struct{ name, yaml string }{
		{"unclosed flow mapping", "- id: agents-notch\n  config: {scale: 1.9\n"},
		{"bad indentation", "- id: agents-notch\n  config:\n    scale: 1.9\n   alerts: all\n"},
		{"not a list", "agents-notch:\n  scale: 1.9\n"},
		{"empty", ""},
		{"comments only", "# row removed for now\n"},
	} {
		t.Run(broken.name, func(t *testing.T) {
			replaceFile(t, f.patch, broken.yaml)
			if !svc.Reload() {
				t.Errorf("Reload reported no change, but a warning appeared")
			}
			v := svc.View()
			if v.Settings.Scale != 1.5 || v.Settings.Alerts != "off" || v.Source["scale"] != SourceRow {
				t.Errorf("broken YAML lost the last good row: scale %v alerts %q source %q", v.Settings.Scale, v.Settings.Alerts, v.Source["scale"])
			}
			if !hasWarning(v.Warnings, f.patch, "") {
				t.Errorf("broken YAML not reported: %+v", v.Warnings)
			}
			// Back to a good file: the warning leaves, the new row applies.
			replaceFile(t, f.patch, rowYAML("scale: 1.5\nalerts: off"))
			svc.Reload()
			if v := svc.View(); len(v.Warnings) != 0 {
				t.Errorf("fixed YAML still reported: %+v", v.Warnings)
			}
		})
	}
}

// An empty patch file says so, rather than "EOF".
func TestEmptyPatchMessage(t *testing.T) {
	for _, y := range []string{"", "\n\n", "# just a comment\n"} {
		_, err := parsePatch([]byte(y), DefaultRowID)
		if err == nil || !strings.Contains(err.Error(), "empty") {
			t.Errorf("parsePatch(%q) = %v, want an error saying the file is empty", y, err)
		}
	}
}

// A YAML broken at startup has no last good row: defaults, reported.
func TestBrokenYAMLAtStart(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.patch, "- id: agents-notch\n  config: {scale: [\n")
	v := f.service(t).View()
	if v.Settings != Defaults {
		t.Errorf("settings = %+v, want the defaults", v.Settings)
	}
	if !hasWarning(v.Warnings, f.patch, "") {
		t.Errorf("not reported: %+v", v.Warnings)
	}
	for _, w := range v.Warnings {
		if strings.Contains(w.Message, "last good row") || !strings.Contains(w.Message, "no row read from it yet") {
			t.Errorf("warning %q: want it to say no row was read yet, never a last good row that never was", w.Message)
		}
	}
}

// YAML 1.2 scalars a human is likely to write.
func TestRowYAMLScalars(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.patch, rowYAML("motion: off\nalerts: off\nscreen: 3\nmaxRows: 7.6\nholdMs: 0x7D0\nopacity: '0.5'\nshowDone: false\nhoverMode: open"))
	v := f.service(t).View()
	want := Partial{"motion": "off", "alerts": "off", "screen": "3", "maxRows": 8, "holdMs": 2000, "opacity": 0.5, "showDone": false, "hoverMode": "open"}
	if !reflect.DeepEqual(v.Row, want) {
		t.Errorf("Row = %#v\nwant %#v", v.Row, want)
	}
}
