package gemini

import "testing"

// The screens are Codex 0.169.0's and Gemini CLI 0.61.0's own, captured
// by make conformance (TestSteerDraft*: capture-pane -p -e, last lines).
func TestEmptyInput(t *testing.T) {
	for _, tc := range []struct {
		name, screen string
		want         bool
	}{
		{"empty, after a turn", "\x1b[39m  \x1b[3m\x1b[38;5;231mExecuting Hooks: notch-web, notch-web\x1b[0m\x1b[39m\x1b[49m                                                                                                         \x1b[38;5;248m? for shortcuts\n\x1b[2m\x1b[38;5;244m────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────\n\x1b[0m\x1b[39m\x1b[49m \x1b[38;5;248mShift+Tab to accept edits\n\x1b[39m\x1b[48;5;240m\n \x1b[38;5;183m> \x1b[7m\x1b[39m \x1b[0m\x1b[38;5;248m\x1b[48;5;240m Type your message or @path/to/file\x1b[39m\n\n\x1b[49m \x1b[38;5;248mworkspace (/directory)\x1b[39m                                                                         \x1b[38;5;248msandbox\x1b[39m                                                  \x1b[38;5;248m/model\n\x1b[39m \x1b[38;5;231m/tmp/TestSteerDraftGemini3372141672/001/project\x1b[39m                                                \x1b[38;5;217mno sandbox\x1b[39m                                                 \x1b[38;5;231mAuto", true},
		{"a half-typed draft", "\n\x1b[2m\x1b[38;5;244m────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────\n\x1b[0m\x1b[39m\x1b[49m \x1b[38;5;248mShift+Tab to accept edits\n\x1b[39m\x1b[48;5;240m\n \x1b[38;5;183m> \x1b[38;5;231mhalf-typed draft\x1b[7m\x1b[39m \x1b[0m\x1b[39m\x1b[48;5;240m\n\n\x1b[49m \x1b[38;5;248mworkspace (/directory)\x1b[39m                                                                         \x1b[38;5;248msandbox\x1b[39m                                                  \x1b[38;5;248m/model\n\x1b[39m \x1b[38;5;231m/tmp/TestSteerDraftGemini3372141672/001/project\x1b[39m                                                \x1b[38;5;217mno sandbox\x1b[39m                                                 \x1b[38;5;231mAuto", false},
		{"the placeholder typed as text is the placeholder", "\n > Type your message or @path/to/file\n\n", true},
		{"shell mode", "\n ! \x1b[2mType your shell command\x1b[0m\n\n", false},
		{"a draft of two lines", "\n > \n   second line\n\n", false},
		{"no screen", "", false},
	} {
		if got := EmptyInput(tc.screen); got != tc.want {
			t.Errorf("%s: EmptyInput = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzEmptyInput: any screen is read without a panic.
func FuzzEmptyInput(f *testing.F) {
	f.Add("\x1b[39m  \x1b[3m\x1b[38;5;231mExecuting Hooks: notch-web, notch-web\x1b[0m\x1b[39m\x1b[49m                                                                                                         \x1b[38;5;248m? for shortcuts\n\x1b[2m\x1b[38;5;244m────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────\n\x1b[0m\x1b[39m\x1b[49m \x1b[38;5;248mShift+Tab to accept edits\n\x1b[39m\x1b[48;5;240m\n \x1b[38;5;183m> \x1b[7m\x1b[39m \x1b[0m\x1b[38;5;248m\x1b[48;5;240m Type your message or @path/to/file\x1b[39m\n\n\x1b[49m \x1b[38;5;248mworkspace (/directory)\x1b[39m                                                                         \x1b[38;5;248msandbox\x1b[39m                                                  \x1b[38;5;248m/model\n\x1b[39m \x1b[38;5;231m/tmp/TestSteerDraftGemini3372141672/001/project\x1b[39m                                                \x1b[38;5;217mno sandbox\x1b[39m                                                 \x1b[38;5;231mAuto") // empty
	f.Add("\n\x1b[2m\x1b[38;5;244m────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────\n\x1b[0m\x1b[39m\x1b[49m \x1b[38;5;248mShift+Tab to accept edits\n\x1b[39m\x1b[48;5;240m\n \x1b[38;5;183m> \x1b[38;5;231mhalf-typed draft\x1b[7m\x1b[39m \x1b[0m\x1b[39m\x1b[48;5;240m\n\n\x1b[49m \x1b[38;5;248mworkspace (/directory)\x1b[39m                                                                         \x1b[38;5;248msandbox\x1b[39m                                                  \x1b[38;5;248m/model\n\x1b[39m \x1b[38;5;231m/tmp/TestSteerDraftGemini3372141672/001/project\x1b[39m                                                \x1b[38;5;217mno sandbox\x1b[39m                                                 \x1b[38;5;231mAuto")                                                                                                                                                                                                                                                     // a draft
	f.Add("\x1b[2;38;5;2m\x1b]8;;x\x07")                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                // escapes cut short
	f.Fuzz(func(t *testing.T, s string) { EmptyInput(s) })
}
