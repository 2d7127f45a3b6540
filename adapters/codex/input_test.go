package codex

import "testing"

// The screens are Codex 0.169.0's and Gemini CLI 0.61.0's own, captured
// by make conformance (TestSteerDraft*: capture-pane -p -e, last lines).
func TestEmptyInput(t *testing.T) {
	for _, tc := range []struct {
		name, screen string
		want         bool
	}{
		{"empty, after a turn", "\n\n\n\n\x1b[1m›\x1b[0m\x1b[39m\x1b[49m \x1b[2mAsk Codex to do anything\x1b[0m\x1b[39m\x1b[49m\n\n  \x1b[38;5;223mgpt-5.1-codex default\x1b[39m · \x1b[38;5;151m/tmp/TestSteerDraftCodex4273435829/001/project\n\x1b[39m  \x1b[1m←\x1b[0m\x1b[39m\x1b[49m for agents · \x1b[1m?\x1b[0m\x1b[39m\x1b[49m for shortcuts                                                                                                      ⚠ \x1b[38;5;179m2 warnings\x1b[39m · \x1b[1mf2\x1b[0m\x1b[39m\x1b[49m to view", true},
		{"a half-typed draft", "\n\n\n\n\x1b[1m›\x1b[0m\x1b[39m\x1b[49m half-typed draft\n\n  \x1b[38;5;223mgpt-5.1-codex default\x1b[39m · \x1b[38;5;151m/tmp/TestSteerDraftCodex4273435829/001/project\n\x1b[39m                                                                                                                                      ⚠ \x1b[38;5;179m2 warnings\x1b[39m · \x1b[1mf2\x1b[0m\x1b[39m\x1b[49m to view", false},
		{"a placeholder of another wording, dim", "\x1b[1m›\x1b[0m \x1b[2mExplain this codebase\x1b[0m\n\n  footer", true},
		{"a menu's choice", "› 2. Trust all and continue\n  3. Continue without trusting", false},
		{"a draft of two lines", "› first line\n  second line\n\n", false},
		{"no screen", "", false},
	} {
		if got := EmptyInput(tc.screen); got != tc.want {
			t.Errorf("%s: EmptyInput = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzEmptyInput: any screen is read without a panic.
func FuzzEmptyInput(f *testing.F) {
	f.Add("\n\n\n\n\x1b[1m›\x1b[0m\x1b[39m\x1b[49m \x1b[2mAsk Codex to do anything\x1b[0m\x1b[39m\x1b[49m\n\n  \x1b[38;5;223mgpt-5.1-codex default\x1b[39m · \x1b[38;5;151m/tmp/TestSteerDraftCodex4273435829/001/project\n\x1b[39m  \x1b[1m←\x1b[0m\x1b[39m\x1b[49m for agents · \x1b[1m?\x1b[0m\x1b[39m\x1b[49m for shortcuts                                                                                                      ⚠ \x1b[38;5;179m2 warnings\x1b[39m · \x1b[1mf2\x1b[0m\x1b[39m\x1b[49m to view") // empty
	f.Add("\n\n\n\n\x1b[1m›\x1b[0m\x1b[39m\x1b[49m half-typed draft\n\n  \x1b[38;5;223mgpt-5.1-codex default\x1b[39m · \x1b[38;5;151m/tmp/TestSteerDraftCodex4273435829/001/project\n\x1b[39m                                                                                                                                      ⚠ \x1b[38;5;179m2 warnings\x1b[39m · \x1b[1mf2\x1b[0m\x1b[39m\x1b[49m to view")                                                                                                   // a draft
	f.Add("\x1b[2;38;5;2m\x1b]8;;x\x07")                                                                                                                                                                                                                                                                                                                                                                                                                                                                             // escapes cut short
	f.Fuzz(func(t *testing.T, s string) { EmptyInput(s) })
}
