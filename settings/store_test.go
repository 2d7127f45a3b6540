package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// post does what the POST handler does with a body: parse, then write.
func post(t testing.TB, svc *Service, body string) (View, error) {
	t.Helper()
	c, err := ParseRequest([]byte(body))
	if err != nil {
		return svc.View(), err
	}
	return svc.Change(c)
}

func badCopies(t testing.TB, pane string) []string {
	t.Helper()
	m, err := filepath.Glob(pane + ".bad-*")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

func TestStoreHoldsOnlyChangedKeys(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.patch, rowYAML("scale: 1.5\nmaxRows: 8"))
	svc := f.service(t)

	steps := []struct {
		body   string
		stored map[string]any // the file, as JSON decodes it
		check  func(View) string
	}{
		{`{"opacity": 0.5}`, map[string]any{"opacity": 0.5}, func(v View) string {
			// One slider click must not snapshot the row into the pane.
			if v.Source["scale"] != SourceRow || v.Settings.Scale != 1.5 {
				return "scale no longer from the row"
			}
			return ""
		}},
		{`{"holdMs": 99999}`, map[string]any{"opacity": 0.5, "holdMs": 4000.0}, nil}, // stored clamped
		{`{"maxRows": 4.6}`, map[string]any{"opacity": 0.5, "holdMs": 4000.0, "maxRows": 5.0}, nil},
		{`{"screen": 2}`, map[string]any{"opacity": 0.5, "holdMs": 4000.0, "maxRows": 5.0, "screen": "2"}, nil},
		{`{"maxRows": null}`, map[string]any{"opacity": 0.5, "holdMs": 4000.0, "screen": "2"}, func(v View) string {
			if v.Settings.MaxRows != 8 || v.Source["maxRows"] != SourceRow {
				return "clearing maxRows did not return it to the row's 8"
			}
			return ""
		}},
		{`{"scale": null}`, map[string]any{"opacity": 0.5, "holdMs": 4000.0, "screen": "2"}, nil}, // clearing an absent key is harmless
		{`{"reset": true}`, map[string]any{}, func(v View) string {
			for _, k := range Keys {
				want := SourceDefault
				if k == "scale" || k == "maxRows" {
					want = SourceRow
				}
				if v.Source[k] != want {
					return "after reset " + k + " comes from " + v.Source[k]
				}
			}
			return ""
		}},
		{`{"reset": true, "alerts": "off"}`, map[string]any{"alerts": "off"}, nil}, // reset, then set
	}
	for _, s := range steps {
		v, err := post(t, svc, s.body)
		if err != nil {
			t.Fatalf("POST %s: %v", s.body, err)
		}
		if got := paneFile(t, f.pane); !reflect.DeepEqual(got, s.stored) {
			t.Fatalf("after %s the file holds %v, want %v", s.body, got, s.stored)
		}
		if s.check != nil {
			if msg := s.check(v); msg != "" {
				t.Fatalf("after %s: %s", s.body, msg)
			}
		}
		// The view agrees with what a fresh reader of the file sees.
		p, w := NewStore(f.pane).Load()
		if !reflect.DeepEqual(p, v.Stored) || len(w) != 0 {
			t.Fatalf("after %s: view stored %v, file loads as %v (warnings %v)", s.body, v.Stored, p, w)
		}
	}
	if b := badCopies(t, f.pane); len(b) != 0 {
		t.Errorf("clean writes left copies behind: %v", b)
	}
}

// A settings.json a human broke is reported, the other layers still work,
// and the next write keeps its old bytes beside it before replacing it.
func TestStoreHandBrokenFile(t *testing.T) {
	cases := []struct {
		name    string
		content string
		stored  Partial // what still loads from it
		warnKey string  // "" for a whole-file warning
	}{
		{"truncated JSON", `{"scale": 1.5, "opacity"`, Partial{}, ""},
		{"trailing comma", "{\"scale\": 1.5,}\n", Partial{}, ""},
		{"an array", `[{"scale": 1.5}]`, Partial{}, ""},
		{"null", "null\n", Partial{}, ""},
		{"two objects", `{"scale": 1.5} {"scale": 1.9}`, Partial{}, ""},
		{"stray brace", "{\"scale\": 1.5}}\n", Partial{}, ""},
		{"a bad value", `{"scale": "huge", "holdMs": 2000}`, Partial{"holdMs": 2000}, "scale"},
		{"an unknown key", `{"colour": "teal", "alerts": "off"}`, Partial{"alerts": "off"}, "colour"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			writeFile(t, f.patch, rowYAML("maxRows: 8"))
			writeFile(t, f.pane, c.content)
			svc := f.service(t)
			v := svc.View()
			if !hasWarning(v.Warnings, f.pane, c.warnKey) {
				t.Errorf("broken file not reported: %+v", v.Warnings)
			}
			if !reflect.DeepEqual(v.Stored, c.stored) {
				t.Errorf("stored = %v, want %v", v.Stored, c.stored)
			}
			if v.Settings.MaxRows != 8 {
				t.Errorf("the row stopped working: maxRows %d", v.Settings.MaxRows)
			}

			if _, err := post(t, svc, `{"opacity": 0.5}`); err != nil {
				t.Fatal(err)
			}
			copies := badCopies(t, f.pane)
			if len(copies) != 1 {
				t.Fatalf("want exactly one kept copy, got %v", copies)
			}
			if got := readFile(t, copies[0]); got != c.content {
				t.Errorf("kept copy = %q, want the old bytes %q", got, c.content)
			}
			want := map[string]any{"opacity": 0.5}
			for k, v := range c.stored {
				if n, ok := v.(int); ok {
					want[k] = float64(n) // as encoding/json decodes it
				} else {
					want[k] = v
				}
			}
			if got := paneFile(t, f.pane); !reflect.DeepEqual(got, want) {
				t.Errorf("rewritten file = %v, want %v", got, want)
			}
			v = svc.View()
			if len(v.Warnings) != 0 {
				t.Errorf("warnings after the rewrite: %+v", v.Warnings)
			}
			// The next write finds a clean file and keeps nothing more.
			if _, err := post(t, svc, `{"opacity": 0.6}`); err != nil {
				t.Fatal(err)
			}
			if n := len(badCopies(t, f.pane)); n != 1 {
				t.Errorf("%d kept copies after a clean write, want 1", n)
			}
		})
	}
}

// A file too large to read is not silently replaced either.
func TestStoreOversizedFileKept(t *testing.T) {
	f := newFixture(t)
	big := `{"scale": 1.5, "pad": "` + strings.Repeat("x", MaxPaneBytes) + `"}`
	writeFile(t, f.pane, big)
	svc := f.service(t)
	if !hasWarning(svc.View().Warnings, f.pane, "") {
		t.Errorf("oversized file not reported: %+v", svc.View().Warnings)
	}
	if _, err := post(t, svc, `{"opacity": 0.5}`); err != nil {
		t.Fatal(err)
	}
	copies := badCopies(t, f.pane)
	if len(copies) != 1 || readFile(t, copies[0]) != big {
		t.Fatalf("the oversized file's bytes were not kept: copies %v", copies)
	}
	if got := paneFile(t, f.pane); !reflect.DeepEqual(got, map[string]any{"opacity": 0.5}) {
		t.Errorf("rewritten file = %v", got)
	}
}

func TestStoreMissingDirAndFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "er", "settings.json")
	s := NewStore(path)
	if p, w := s.Load(); len(p) != 0 || len(w) != 0 {
		t.Fatalf("missing file: %v %v", p, w)
	}
	got, err := s.Apply(Change{Set: Partial{"alerts": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, Partial{"alerts": "off"}) {
		t.Errorf("Apply = %v", got)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

func TestStoreEmptyFileIsEmptyLayer(t *testing.T) {
	for _, content := range []string{"", "\n  \n", "{}"} {
		p, w := DecodePane("s.json", []byte(content))
		if len(p) != 0 || len(w) != 0 {
			t.Errorf("DecodePane(%q) = %v, %v; want an empty layer, no warning", content, p, w)
		}
	}
}

func TestDecodePaneClamps(t *testing.T) {
	p, w := DecodePane("s.json", []byte(`{"scale": 9, "maxRows": 6.5, "screen": 3, "holdMs": "1000", "opacity": 1e999}`))
	want := Partial{"scale": 2.0, "maxRows": 7, "screen": "3", "holdMs": 1000}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("DecodePane = %#v, want %#v", p, want)
	}
	if !hasWarning(w, "s.json", "opacity") || !hasWarning(w, "s.json", "scale") || len(w) != 2 {
		t.Errorf("warnings = %+v, want one for opacity (refused) and one for scale (clamped)", w)
	}
}

// A settings.json that is a directory is refused with its reason; nothing
// is kept aside (there are no bytes to keep) however often it is tried.
func TestStoreRefusesADirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	s := NewStore(path)
	for range 3 {
		_, err := s.Apply(Change{Set: Partial{"scale": 1.5}})
		if err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Fatalf("Apply into a directory: %v, want an error saying it is a directory", err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "settings.json" && e.Name() != "settings.json.lock" {
			t.Errorf("left %s behind", e.Name())
		}
	}
	if _, warns := s.Load(); len(warns) != 1 || !strings.Contains(warns[0].Message, "is a directory") {
		t.Errorf("Load warnings %v, want one saying it is a directory", warns)
	}
}

// The temporary files of a write that a kill -9 interrupted are removed
// when the service starts (a young one may be another process's write in
// flight, and stays).
func TestServiceRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	pane := filepath.Join(dir, "settings.json")
	old := filepath.Join(dir, ".settings.json.tmp-123")
	young := filepath.Join(dir, ".settings.json.tmp-456")
	for _, p := range []string{old, young} {
		if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	NewService(Options{PanePath: pane})
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("a stale temp file of settings.json survived the start")
	}
	if _, err := os.Stat(young); err != nil {
		t.Error("a young temp file (another writer's) was removed")
	}
}
