package qwen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/notch-web/notch-web/internal/screen/screentest"
)

// The screens in testdata/screens are qwen's own, captured by make
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
		{"the placeholder typed as text is the placeholder", "─────\n> Type your message or @path/to/file\n─────\n", true},
		{"nothing after the prompt", "─────\n> \u200b\n─────\n", true},
		{"shell mode", "─────\n! Type your shell command\n─────\n", false},
		{"a draft of two lines", "─────\n> first\n  second\n─────\n", false},
		{"a draft", "─────\n> fix it\u200b\n─────\n", false},
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
