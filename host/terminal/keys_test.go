package terminal

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
)

func TestCheckReply(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"Run the tests", "Run the tests", true},
		{"one\r\ntwo\rthree\n\n", "one\ntwo\nthree", true},
		{"$(rm -rf ~) `id` ; -t %1 Enter", "$(rm -rf ~) `id` ; -t %1 Enter", true},
		{strings.Repeat("é", MaxReply/2), strings.Repeat("é", MaxReply/2), true},
		{strings.Repeat("x", MaxReply+1), "", false},
		{"", "", false},
		{" \n\r\n ", "", false},
		{"a\tb", "", false},
		{"\x1b[2J", "", false},
		{"a\x00", "", false},
		{"a\x7f", "", false},
		{"a\u0085", "", false},
		{"a\u202eb", "", false},
		{"a\u2028b", "", false},
		{"\xff", "", false},
	} {
		got, err := CheckReply(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("CheckReply(%.30q) = %.30q, %v; want %.30q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzCheckReply: what CheckReply passes is at most MaxReply bytes of
// UTF-8 whose only hidden character is a newline, never empty.
func FuzzCheckReply(f *testing.F) {
	f.Add("Run the tests")      // a reply
	f.Add("one\r\ntwo\n")       // lines
	f.Add("\x1b]52;c;AAAA\x07") // an escape sequence
	f.Add("$(id)\u202e\t-l")    // a shell, bidi, a tab, a flag
	f.Fuzz(func(t *testing.T, s string) {
		got, err := CheckReply(s)
		if err != nil {
			return
		}
		if got == "" || len(got) > MaxReply || !utf8.ValidString(got) || textrule.Has(strings.ReplaceAll(got, "\n", "")) || strings.Contains(got, "\r") {
			t.Fatalf("CheckReply(%q) = %q", s, got)
		}
	})
}
