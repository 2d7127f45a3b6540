package settings

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
)

// writeFile writes content to path, creating its directory.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceFile puts content at path the way an editor or a careful writer
// does: a temporary file beside it, renamed into place.
func replaceFile(t testing.TB, path, content string) {
	t.Helper()
	tmp := path + ".editing"
	writeFile(t, tmp, content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// paneKeys decodes the pane file and returns its raw JSON object.
func paneFile(t testing.TB, path string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &m); err != nil {
		t.Fatalf("%s is not a JSON object: %v", path, err)
	}
	return m
}

// rowYAML is a patch file whose agents-notch row carries config.
func rowYAML(config string) string {
	var b strings.Builder
	b.WriteString("- id: agents-notch\n  config:\n")
	for _, line := range strings.Split(strings.TrimRight(config, "\n"), "\n") {
		b.WriteString("    " + line + "\n")
	}
	return b.String()
}

// fixture is a DSH_HOME-like temp tree: one patch file and the pane's file.
type fixture struct {
	dir   string
	patch string
	pane  string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	dir := t.TempDir()
	return fixture{
		dir:   dir,
		patch: filepath.Join(dir, "cordis", "cordis.patch.yml"),
		pane:  filepath.Join(dir, "state", "agents-notch", "settings.json"),
	}
}

func (f fixture) service(t testing.TB, extraPatches ...string) *Service {
	t.Helper()
	return NewService(Options{PatchPaths: append([]string{f.patch}, extraPatches...), PanePath: f.pane})
}

// hasWarning reports whether ws has a warning against file (and key, when
// key is not "").
func hasWarning(ws []Warning, file, key string) bool {
	for _, w := range ws {
		if w.File == file && (key == "" || w.Key == key) {
			return true
		}
	}
	return false
}

// waitFor is waitfor.Until (the deadline is its Patience).
func waitFor(t testing.TB, what string, _ time.Duration, cond func() bool) {
	waitfor.Until(t, what, cond)
}

// checkInRange fails unless v is a value ParseValue could have produced for
// key: the field's Go type, inside the key's range or choices, and a fixed
// point of ParseValue (it re-parses to itself).
func checkInRange(t testing.TB, key string, v any) {
	t.Helper()
	if !IsKey(key) {
		t.Fatalf("unknown key %q in a parsed layer", key)
	}
	again, err := ParseValue(key, v)
	if err != nil {
		t.Fatalf("%s=%#v does not re-parse: %v", key, v, err)
	}
	if !reflect.DeepEqual(again, v) {
		t.Fatalf("%s=%#v re-parses to %#v", key, v, again)
	}
	var probe Settings
	probe.apply(key, v) // panics on a value of the wrong Go type
	if lo, hi, ok := Range(key); ok {
		var f float64
		switch n := v.(type) {
		case float64:
			f = n
		case int:
			f = float64(n)
		}
		if math.IsNaN(f) || f < lo || f > hi {
			t.Fatalf("%s=%v outside [%v, %v]", key, v, lo, hi)
		}
	}
	if c := Choices(key); c != nil {
		s, _ := v.(string)
		ok := false
		for _, x := range c {
			ok = ok || x == s
		}
		if !ok {
			t.Fatalf("%s=%#v not one of %v", key, v, c)
		}
	}
}
