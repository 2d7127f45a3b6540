package window

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
)

func TestLastLine(t *testing.T) {
	for _, tc := range []struct {
		tail      string
		truncated bool
		want      string
	}{
		{"one\ntwo\n", false, "two"},
		{"one\ntwo", false, "two"},
		{"one\r\ntwo\r\n\r\n  \n", false, "two"},
		{"only", false, "only"},
		{"the end of a long line", true, "…the end of a long line"},
		{"cut\nwhole", true, "whole"},
		{"", false, ""},
		{"\n\n", false, ""},
		{"a\x00b\x1b[2Jc\u202eevil", false, "ab[2Jcevil"},
	} {
		if got := lastLine([]byte(tc.tail), tc.truncated); got != tc.want {
			t.Errorf("lastLine(%q, %v) = %q, want %q", tc.tail, tc.truncated, got, tc.want)
		}
	}
}

func TestCrashLineReadsOnlyTheTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), CrashFile)
	var b strings.Builder
	for b.Len() < 100<<10 {
		b.WriteString("an older crash, long ago\n")
	}
	b.WriteString("the latest crash: " + strings.Repeat("é", 400) + "\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got := crashLine(path)
	if !strings.HasPrefix(got, "the latest crash: ") || len(got) > maxCrashLine || !utf8.ValidString(got) {
		t.Errorf("crashLine = %q (%d bytes)", got, len(got))
	}
	if crashLine(filepath.Join(t.TempDir(), "none")) != "" {
		t.Error("a missing crash log gave a line")
	}
}

func TestWrittenSince(t *testing.T) {
	path := filepath.Join(t.TempDir(), CrashFile)
	none := markFile(path)
	if writtenSince(path, none) {
		t.Error("a file that does not exist was written")
	}
	os.WriteFile(path, []byte("one\n"), 0o644)
	if !writtenSince(path, none) {
		t.Error("a file that appeared was not written")
	}
	one := markFile(path)
	if writtenSince(path, one) {
		t.Error("an untouched file was written")
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("two\n")
	f.Close()
	if !writtenSince(path, one) {
		t.Error("an appended file was not written")
	}
}

func TestClean(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"plain", 10, "plain"},
		{"  padded\t\r\n", 20, "padded"},
		{"tab\there", 20, "tab here"},
		{"bell\a nul\x00 del\x7f c1\u0085", 40, "bell nul del c1"},
		{"\x1b[31mred\x1b[0m", 20, "[31mred[0m"},
		{"bidi \u202eoverride\u2066", 40, "bidi override"},
		{"bad \xff utf8", 20, "bad \uFFFD utf8"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abc…"}, // the ellipsis counts
		{"ééé", 6, "ééé"},
		{"éééé", 7, "éé…"}, // never half a rune
		{"zero\u200bwidth\u061c\ufeff", 20, "zerowidth"},
	} {
		if got := clean([]byte(tc.in), tc.limit); got != tc.want {
			t.Errorf("clean(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}

// FuzzClean: whatever the window prints or leaves in its crash log, the
// log field is valid UTF-8, holds no control characters and is bounded.
func FuzzClean(f *testing.F) {
	f.Add([]byte("Unhandled exception. System.Exception: boom")) // a .NET crash line
	f.Add([]byte("\x1b[2J\x1b[H\r\n\x00"))                       // terminal control
	f.Add([]byte("\xff\xfe\xfd"))                                // not UTF-8
	f.Add([]byte("\u202e\u2066\u200f"))                          // bidi controls
	f.Fuzz(func(t *testing.T, data []byte) {
		got := clean(data, 50)
		if !utf8.ValidString(got) {
			t.Errorf("clean(%q) = %q: not UTF-8", data, got)
		}
		if len(got) > 50 {
			t.Errorf("clean(%q) = %q: %d bytes", data, got, len(got))
		}
		for _, r := range got {
			if textrule.Hidden(r) {
				t.Errorf("clean(%q) = %q: holds %U", data, got, r)
			}
		}
		for _, truncated := range []bool{false, true} {
			if got := lastLine(data, truncated); len(got) > maxCrashLine || !utf8.ValidString(got) {
				t.Errorf("lastLine(%q, %v) = %q: %d bytes, the README promises at most %d", data, truncated, got, len(got), maxCrashLine)
			}
		}
	})
}

// TestCrashLineAtMost500Bytes: the quoted crash line is at most 500 bytes
// as docs/window.md says, however long the line and whether or not it was
// cut at both ends (issue 19: 506 bytes were seen).
func TestCrashLineAtMost500Bytes(t *testing.T) {
	long := strings.Repeat("x", 20<<10)
	for _, tc := range []struct {
		tail      string
		truncated bool
	}{
		{long, true},          // cut at the start (the tail) and at the end
		{long, false},         // cut at the end
		{"a\n" + long, false}, // one long last line
		{strings.Repeat("é", 4000), true},
		{strings.Repeat("\u202e", 3000) + long, true}, // hidden runes dropped, then cut
	} {
		if got := lastLine([]byte(tc.tail), tc.truncated); len(got) > maxCrashLine || len(got) < maxCrashLine-8 {
			t.Errorf("lastLine(%d bytes, %v) is %d bytes, want at most (and about) %d", len(tc.tail), tc.truncated, len(got), maxCrashLine)
		}
	}
}
