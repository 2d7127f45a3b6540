package kilo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/notch-web/notch-web/internal/screen/screentest"
)

// The screens in testdata/screens are Kilo Code CLI 7.7.7's own, captured
// by make conformance (TestSteerDraftKilo: capture-pane -p -e; the run's
// temporary folder in its sidebar replaced by one of the same length): a
// file named empty_* is an empty input, draft* one with a half-typed
// draft. Kilo draws OpenCode's input box, so Spec.EmptyInput is
// OpenCode's rule; this is what proves it reads Kilo's screens.
func TestEmptyInputOnCapturedScreens(t *testing.T) { screentest.Captured(t, Spec.EmptyInput) }

// Kilo's screens made by hand from the captured ones: what the rule
// reads and what it refuses there.
func TestEmptyInput(t *testing.T) {
	for _, tc := range []struct {
		name, screen string
		want         bool
	}{
		{"no screen", "", false},
		{"Kilo's placeholder", "  ┃  Ask anything… \"Fix a TODO in the codebase\"\n  ┃\n  ┃  Code · Claude Sonnet 4.5 (latest) Anthropic\n  ╹▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀", true},
		{"a blank box after a turn", "  ┃\n  ┃\n  ┃  Code · Claude Sonnet 4.5 (latest) Anthropic\n  ╹▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀", true},
		{"a draft", "  ┃  half-typed draft\n  ┃\n  ┃  Code · Claude Sonnet 4.5 (latest) Anthropic\n  ╹▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀", false},
		{"its permission dialog: no box", " △ Permission required\n   # Shell command\n   Allow once   Allow always   Reject", false},
		{"its Reject stage: no input box", " △ Reject permission\n   Tell Kilo what to do differently\n   enter confirm  esc cancel", false},
	} {
		if got := Spec.EmptyInput(tc.screen); got != tc.want {
			t.Errorf("%s: EmptyInput = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzEmptyInput: any screen, Kilo's captured ones to start from, is read
// without a panic.
func FuzzEmptyInput(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "screens", "*.txt"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(string(b))
	}
	f.Add("┃\n╹▀")
	f.Fuzz(func(t *testing.T, s string) { Spec.EmptyInput(s) })
}
