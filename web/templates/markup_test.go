package templates

import (
	"html"
	"strings"
	"testing"
)

// FuzzMarkupEsc holds the row's escaping to templ's: html.EscapeString,
// byte for byte, whatever the text.
func FuzzMarkupEsc(f *testing.F) {
	for _, s := range []string{
		"",                            // nothing
		"plain title",                 // nothing to escape
		`<script>alert("x")</script>`, // markup
		`a & b's "c" <d>`,             // each of the five
		"&amp;",                       // already escaped: escaped again
		"\u202eevil\u0000\x1b[31m",    // bidi, NUL, an escape sequence: text
		"\xff\xfe not UTF-8 <",        // invalid UTF-8 passes as bytes
		strings.Repeat(`"'&<>`, 1000), // long
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		m := newMarkup(&b)
		m.esc(s)
		if m.err != nil {
			t.Fatal(m.err)
		}
		if got, want := b.String(), html.EscapeString(s); got != want {
			t.Fatalf("esc(%q) = %q, want %q", s, got, want)
		}
	})
}
