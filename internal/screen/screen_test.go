package screen

import (
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		in          string
		text, plain string
	}{
		{"plain", "plain", "plain"},
		{"\x1b[1m›\x1b[0m \x1b[2mAsk Codex\x1b[0m", "› Ask Codex", "› "},
		{"\x1b[38;5;2mgreen\x1b[0m", "green", "green"},             // 5;2 is a colour, not dim
		{"\x1b[38;2;2;2;2mrgb\x1b[m", "rgb", "rgb"},                // so is 2;R;G;B
		{"\x1b[2;22mnot dim", "not dim", "not dim"},                // 22 ends it
		{"\x1b[2ma\x1b[mb", "ab", "b"},                             // ESC[m resets
		{"\x1b]8;;http://x\x07link\x1b]8;;\x1b\\", "link", "link"}, // OSC dropped
		{"a\x1b", "a", "a"},
		{"\x1b[2", "", ""},
		{"tab\there\x7f", "tabhere", "tabhere"},
	} {
		l := Lines(tc.in)[0]
		if l.Text != tc.text || l.Plain() != tc.plain {
			t.Errorf("Lines(%q) = %q plain %q, want %q plain %q", tc.in, l.Text, l.Plain(), tc.text, tc.plain)
		}
	}
	// Dim carries over a line's end, as tmux writes it.
	ls := Lines("\x1b[2mone\ntwo\x1b[0m\nthree")
	if ls[1].Plain() != "" || ls[2].Plain() != "three" {
		t.Errorf("dim across lines: %q %q", ls[1].Plain(), ls[2].Plain())
	}
	if r, ok := Lines("  > draft")[0].After(">"); !ok || r.Text != " draft" {
		t.Errorf("After: %q %v", r.Text, ok)
	}
}

// FuzzLines: every byte of Text is a printable one of the input's, and
// Plain is no longer than Text.
func FuzzLines(f *testing.F) {
	f.Add("\x1b[1m›\x1b[0m \x1b[2mAsk\x1b[0m") // a placeholder
	f.Add("\x1b[38;5;2;2m\x1b]8;;\x1b")        // escapes cut short
	f.Add("a\nb\r\n\x00")                      // controls
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range Lines(s) {
			if len(l.Plain()) > len(l.Text) || strings.ContainsAny(l.Text, "\x1b\x00\n\x7f") {
				t.Fatalf("Lines(%q): %q", s, l.Text)
			}
			l.After("›")
			l.Blank()
		}
	})
}
