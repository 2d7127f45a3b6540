package claudecode

import "testing"

// Claude Code 2.1.328's input box as make conformance saw it in tmux
// (TestSteerDraftClaude), the rules shortened.
func TestEmptyInput(t *testing.T) {
	const rule = "────────────────────"
	above := "● Done: the stand-in's final answer.\n\n                    ◐ medium · /effort\n" + rule + "\n"
	below := "\n" + rule + "\n  ⏸ manual mode on · ? for shortcuts · ← for agents \n"
	for _, tc := range []struct {
		name, screen string
		want         bool
	}{
		{"empty, after a turn", above + "❯                           " + below, true},
		{"empty, with its escapes", above + "\x1b[39m❯\x1b[0m \x1b[7m \x1b[0m   " + below, true},
		{"a dim hint", above + "❯ \x1b[2mTry \"fix lint errors\"\x1b[0m" + below, true},
		{"a half-typed draft", above + "❯ half-typed draft          " + below, false},
		{"a draft of two lines", above + "❯ first line\n  second line" + below, false},
		{"a draft's second line only", above + "❯ \n  second line" + below, false},
		{"the prompt put back after a Stop", above + "❯ scenario:slow Take your time" + below, false},
		{"a dialog, no box", "Do you want to proceed?\n❯ 1. Yes\n  2. No\n", false},
		{"no screen", "", false},
	} {
		if got := EmptyInput(tc.screen); got != tc.want {
			t.Errorf("%s: EmptyInput = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzEmptyInput: any screen is read without a panic.
func FuzzEmptyInput(f *testing.F) {
	f.Add("────\n❯ \n────\n")                  // empty
	f.Add("────\n❯ draft\n────\n")             // a draft
	f.Add("────\n❯ \x1b[2;38;5\n────\x1b]8;;") // escapes cut short
	f.Fuzz(func(t *testing.T, s string) { EmptyInput(s) })
}
