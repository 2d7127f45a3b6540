package opencode

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/notch-web/notch-web/internal/screen/screentest"
)

// The screens in testdata/screens are opencode's own, captured by make
// conformance (TestSteerDraft*: capture-pane -p -e): a file named
// empty_* is an empty input, draft* one with a half-typed draft.
func TestEmptyInputOnCapturedScreens(t *testing.T) { screentest.Captured(t, EmptyInput) }

// Screens made by hand: what the rule reads and what it refuses.
func TestEmptyInput(t *testing.T) {
	for _, tc := range []struct {
		name, screen string
		want         bool
	}{
		{"no screen", "", false},
		{"a blank box with a sidebar beside it", "  ┃          side\n  ┃  Build · m  x\n  ╹▀▀▀▀▀▀▀▀▀▀  /tmp", true},
		{"the placeholder", "  ┃  Ask anything… \"What?\"\n  ┃  Build · m\n  ╹▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀", true},
		{"a draft under the sidebar's text", "  ┃  fix it     side\n  ┃  Build · m  x\n  ╹▀▀▀▀▀▀▀▀▀▀  /tmp", false},
		{"a draft's second line", "  ┃\n  ┃  more\n  ┃  Build · m\n  ╹▀▀▀▀▀▀▀▀▀▀", false},
		{"only the model line", "  ┃  Build · m\n  ╹▀▀▀▀▀▀▀▀▀▀", false},
		{"a dialog: no box", " Permission required\n  Allow once  Reject", false},
	} {
		if got := EmptyInput(tc.screen); got != tc.want {
			t.Errorf("%s: EmptyInput = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzEmptyInput: any screen is read without a panic.
func FuzzEmptyInput(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "screens", "*.txt"))
	for _, p := range files {
		b, _ := os.ReadFile(p) // the captured screens
		f.Add(string(b))
	}
	f.Add("\x1b[2;38;5;2m\x1b]8;;x\x07") // escapes cut short
	f.Add("┃\n╹▀")                       // a box of nothing
	f.Fuzz(func(t *testing.T, s string) { EmptyInput(s) })
}
