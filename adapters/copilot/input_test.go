package copilot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/notch-web/notch-web/internal/screen/screentest"
)

// The screens in testdata/screens are copilot's own, captured by make
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
		{"the prompt alone between two rules", "x\n─────\n❯ \n─────\nfooter", true},
		{"a draft of two lines", "─────\n❯ first\n  second\n─────\n", false},
		{"a blank first line and text under it", "─────\n❯\n  typed\n─────\n", false},
		{"a dialog: no prompt in the box", "─────\n Allow this tool?  1. Yes\n─────\n", false},
		{"one rule only", "❯\n─────\n", false},
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
