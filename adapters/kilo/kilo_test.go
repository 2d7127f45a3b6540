package kilo

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/notch-web/notch-web/adapters/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the code (then review them by reading!)")

// TestGolden replays the payload sequences Kilo Code CLI 7.7.7 sent through
// notch-web's plugin (testdata/*.jsonl) through Map and a real fold: the
// events are OpenCode's, and so is the map (adapters/internal/ocplugin).
func TestGolden(t *testing.T) { golden.Run(t, Map, *update) }

// TestDatabase: Kilo's database is kilo.db in its own data folder, where
// the host's environment says data lives.
func TestDatabase(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	if got, want := Database(), filepath.Join(data, "kilo", "kilo.db"); got != want {
		t.Errorf("Database() = %q, want %q", got, want)
	}
}
