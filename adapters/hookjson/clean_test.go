package hookjson

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notch-web/notch-web/state"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		max      int
		clean    string
		oneLine  string
	}{
		{"plain", "go test ./...", 200, "go test ./...", "go test ./..."},
		{"tab and newlines", "rm -rf build/\n\tmkdir build\r\n", 200, "rm -rf build/  mkdir build  ", "rm -rf build/ mkdir build"},
		{"escape sequence", "red\x1b[31mtext\x7f", 200, "red [31mtext ", "red [31mtext"},
		{"C1 control and separators", "a\u0085b\u2028c\u2029d", 200, "a b c d", "a b c d"},
		{"bidi override", "txt.exe\u202eexe.fdp\u202c", 200, "txt.exe exe.fdp ", "txt.exe exe.fdp"},
		{"invalid UTF-8", "ok\xff\xfe!", 200, "ok\ufffd\ufffd!", "ok\ufffd\ufffd!"},
		{"cut with ellipsis", "abcdefghij", 8, "abcde…", "abcde…"},
		{"cut on a rune boundary", "ééééé", 7, "éé…", "éé…"},
		{"cut before a trailing space", "abcd efgh", 8, "abcd …", "abcd…"},
		{"too small for an ellipsis", "abcdef", 2, "ab", "ab"},
		{"zero", "abc", 0, "", ""},
		{"leading space", "   x  ", 200, "   x  ", "x"},
		{"only controls", "\n\t\r", 200, "   ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Clean(tc.in, tc.max); got != tc.clean {
				t.Errorf("Clean(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.clean)
			}
			if got := OneLine(tc.in, tc.max); got != tc.oneLine {
				t.Errorf("OneLine(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.oneLine)
			}
		})
	}
}

// TestCleanValidates: whatever Clean returns fits every string field of the
// vocabulary (no control characters, valid UTF-8, within max).
func TestCleanValidates(t *testing.T) {
	in := strings.Repeat("a\x00\t\u2028é\xff", 2000)
	for _, max := range []int{1, 2, 3, 4, 199, 200, 4096} {
		for _, s := range []string{Clean(in, max), OneLine(in, max)} {
			if len(s) > max || !utf8.ValidString(s) {
				t.Fatalf("max %d: %q is %d bytes or not UTF-8", max, s, len(s))
			}
			ev := state.Event{Type: state.TypeToolStarted, Session: "s", Tool: "x", Title: "", Cwd: s}
			ev2 := state.Event{Type: state.TypeApprovalRequested, Session: "s", Tool: "x", Reason: s}
			if max <= MaxCwd {
				ev.Type = state.TypeSessionOpened
				ev.Tool = ""
				if err := ev.Validate(); err != nil {
					t.Errorf("max %d: cwd %v", max, err)
				}
			}
			if err := ev2.Validate(); err != nil {
				t.Errorf("max %d: reason %v", max, err)
			}
		}
	}
}

func TestID(t *testing.T) {
	long := strings.Repeat("x", 201)
	for _, tc := range []struct {
		name, raw string
		want      string // "" for "hashed"
	}{
		{"uuid", "5d1f0c2e-7a43-4b8e-9c61-0e2b7f4a9d10", "5d1f0c2e-7a43-4b8e-9c61-0e2b7f4a9d10"},
		{"200 bytes", long[:200], long[:200]},
		{"201 bytes", long, ""},
		{"control", "a\tb", ""},
		{"invalid UTF-8", "a\xffb", ""},
		{"bidi", "a\u202eb", ""},
		{"arabic letter mark", "a\u061cb", ""},
		{"zero width", "a\u200bb", ""},
		// Issue 19: the namespace of derived ids is not a raw id's.
		{"a subagent's shape", "S/A", ""},
		{"a hashed shape", "h:cdde1946c592d64cfe6182fe1b39937d", ""},
		{"a hashed subagent's shape", "a:cdde1946c592d64cfe6182fe1b39937d", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ID(tc.raw)
			if tc.want != "" {
				if got != tc.want {
					t.Errorf("ID(%q) = %q, want it unchanged", tc.raw, got)
				}
				return
			}
			if !strings.HasPrefix(got, "h:") || len(got) != 34 || !validID(got) {
				t.Errorf("ID(%q) = %q, want h: and 32 hex digits", tc.raw, got)
			}
			if ID(tc.raw) != got {
				t.Error("not stable")
			}
		})
	}
	if ID("") != "" {
		t.Error(`ID("") is not ""`)
	}
	if ID("a\tb") == ID("a\nb") {
		t.Error("two ids that differ only in a control character share a row")
	}
}

func TestSubagentID(t *testing.T) {
	if got := SubagentID("sess", "a7c1f2"); got != "sess/a7c1f2" {
		t.Errorf("got %q", got)
	}
	for _, tc := range [][2]string{
		{strings.Repeat("p", 195), "agent-42"}, // the pair is too long
		{"sess", "a\nb"},                       // the agent id has a control character
	} {
		got := SubagentID(tc[0], tc[1])
		if !strings.HasPrefix(got, "a:") || len(got) != 34 || got == ID(tc[0]) {
			t.Errorf("SubagentID(%.20q…, %q) = %q, want a: and 32 hex digits", tc[0], tc[1], got)
		}
		if SubagentID(tc[0], tc[1]) != got {
			t.Error("not stable")
		}
	}
	// A hashed parent still prefixes its subagents.
	if p := strings.Repeat("p", 300); SubagentID(p, "x") != ID(p)+"/x" {
		t.Errorf("a hashed parent's subagent is %q", SubagentID(p, "x"))
	}
	if SubagentID("ab", "c") == SubagentID("a", "bc") {
		t.Error("two pairs share a row")
	}
	if SubagentID(strings.Repeat("p", 195), "x1") == SubagentID(strings.Repeat("p", 195), "x2") {
		t.Error("two hashed subagents share a row")
	}
}

func TestPromptTitle(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, tc := range []struct{ in, want string }{
		{"Fix the flaky test in state/", "Fix the flaky test in state/"},
		{"\n\n   Fix the build\nthen run the tests", "Fix the build"},
		{"  spaced\tout   words  ", "spaced out words"},
		{"first\rsecond", "first"},
		{"a\u2028b", "a"},
		{"", ""},
		{"   \n\t\n", ""},
		{long, strings.Repeat("word ", 15) + "wo…"},
		{"<task-notification>\n<task-id>a1</task-id> done</task-notification>", ""},
		{"<command-name>/review</command-name>", ""},
		{"<b>bold</b> claim", ""},
		{"< 3 is less", "< 3 is less"},
		{"<3 fixes", "<3 fixes"},
		{"bad \xff byte\x1b[31m red", "bad \ufffd byte [31m red"},
		{"\u202eevil", "evil"},
		{strings.Repeat("x", 5000) + "\nsecond", strings.Repeat("x", 77) + "…"},
	} {
		got := PromptTitle(tc.in, MaxPromptTitle)
		if got != tc.want {
			t.Errorf("PromptTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if len(got) > MaxPromptTitle || state.HasControl(got) {
			t.Errorf("PromptTitle(%q) = %q: over %d bytes or a control character", tc.in, got, MaxPromptTitle)
		}
	}
}

func FuzzPromptTitle(f *testing.F) {
	for _, s := range []string{"Fix it", "\n\nline two", "<task-notification>x", "\xff\x00", strings.Repeat("é", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := PromptTitle(s, MaxPromptTitle)
		if len(got) > MaxPromptTitle || state.HasControl(got) || !utf8.ValidString(got) || strings.TrimSpace(got) != got {
			t.Fatalf("PromptTitle(%q) = %q", s, got)
		}
	})
}
