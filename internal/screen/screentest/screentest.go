// Package screentest reads an agent's captured screens for its input
// rule's tests (adapters/*/input_test.go).
package screentest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Captured checks empty against every screen in testdata/screens, as make
// conformance captured them (capture-pane -p -e): a file named empty_* is
// an empty input, any other (draft*) one the rule must refuse.
func Captured(t *testing.T, empty func(screen string) bool) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "screens", "*.txt"))
	if len(files) == 0 {
		t.Fatal("no captured screens")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.HasPrefix(filepath.Base(f), "empty")
		if got := empty(string(b)); got != want {
			t.Errorf("%s: EmptyInput = %v, want %v", f, got, want)
		}
	}
}
