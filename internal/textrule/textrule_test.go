package textrule

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHidden(t *testing.T) {
	for _, tc := range []struct {
		r    rune
		want bool
	}{
		{'a', false}, {' ', false}, {'é', false}, {'中', false}, {'😀', false}, {'\u00a0', false},
		{'\t', true}, {'\n', true}, {'\r', true}, {'\x1b', true}, {'\a', true}, {'\x7f', true}, {'\u0085', true}, {'\u009b', true},
		{'\u061c', true}, // ARABIC LETTER MARK (issue 19: the hook cleaner missed it)
		{'\u200e', true}, {'\u200f', true}, {'\u202a', true}, {'\u202e', true}, {'\u2066', true}, {'\u2069', true},
		{'\u200b', true}, {'\u200c', true}, {'\u200d', true}, {'\u2060', true}, {'\ufeff', true}, {'\u00ad', true},
		{'\u2028', true}, {'\u2029', true}, {'\U000e0041', true},
	} {
		if got := Hidden(tc.r); got != tc.want {
			t.Errorf("Hidden(%U) = %v, want %v", tc.r, got, tc.want)
		}
	}
}

func TestReplaceEscapeShow(t *testing.T) {
	for _, tc := range []struct{ in, replaced, escaped, shown string }{
		{"plain/path name", "plain/path name", "plain/path name", "plain/path name"},
		{"A\u202egnp.exe", "A\ufffdgnp.exe", `A\u202egnp.exe`, `"A\u202egnp.exe"`},
		{"me\x1b]0;pwned\x07", "me\ufffd]0;pwned\ufffd", `me\x1b]0;pwned\a`, `"me\x1b]0;pwned\a"`},
		{"zw\u200bsp\u061c", "zw\ufffdsp\ufffd", `zw\u200bsp\u061c`, `"zw\u200bsp\u061c"`},
		{"bad\xffutf8", "bad\ufffdutf8", `bad\xffutf8`, `"bad\xffutf8"`},
		{"two\nlines", "two\ufffdlines", `two\nlines`, `"two\nlines"`},
	} {
		if got := Replace(tc.in, '\ufffd'); got != tc.replaced {
			t.Errorf("Replace(%q) = %q, want %q", tc.in, got, tc.replaced)
		}
		if got := Escape(tc.in, ""); got != tc.escaped {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.escaped)
		}
		if got := Show(tc.in); got != tc.shown {
			t.Errorf("Show(%q) = %q, want %q", tc.in, got, tc.shown)
		}
	}
	if got := Escape("a\nb\x1b", "\n"); got != "a\nb\\x1b" {
		t.Errorf("Escape keeping newlines: %q", got)
	}
}

// FuzzTextRule: whatever the text, Replace leaves valid UTF-8 with nothing
// hidden, and the same length in runes; Escape and Show leave nothing
// hidden and nothing but printable ASCII where they escaped; Show reads
// back to the text when it quoted.
func FuzzTextRule(f *testing.F) {
	for _, seed := range []string{
		"", "plain", "A\u202egnp.exe", "\x1b[2J\x1b]0;t\x07", "\u061c\u200b\u200d\ufeff\u2028",
		"bad\xff\xfe", "\U000e0041tag", "tab\there", "👨\u200d💻",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Replace(s, '\ufffd')
		if !utf8.ValidString(r) || Has(r) {
			t.Fatalf("Replace(%q) = %q still holds hidden text", s, r)
		}
		if utf8.RuneCountInString(r) != utf8.RuneCountInString(s) {
			t.Fatalf("Replace(%q) = %q changed the length", s, r)
		}
		if !Has(s) && r != s {
			t.Fatalf("Replace changed clean text %q to %q", s, r)
		}
		for _, out := range []string{Escape(s, ""), Show(s)} {
			if Has(out) {
				t.Fatalf("%q still holds hidden text", out)
			}
		}
		if sh := Show(s); sh != s {
			back, err := strconv.Unquote(sh)
			if err != nil || back != s {
				t.Fatalf("Show(%q) = %q does not read back (%v)", s, sh, err)
			}
		}
		if e := Escape(s, "\n"); strings.Count(e, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Escape kept %d line breaks of %d", strings.Count(e, "\n"), strings.Count(s, "\n"))
		}
	})
}
