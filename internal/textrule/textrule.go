// Package textrule is notch-web's one rule for text from outside that is
// shown to a human — a row of the board, a line on a terminal: which
// characters must never be shown as themselves, because they could make
// the text read as something it is not or act on the screen.
//
// Hidden is the rule. A row's strings have each such character replaced
// (state, adapters/hookjson); a terminal line has them escaped (Escape).
package textrule

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hidden reports whether r must never be shown as itself:
//   - control characters (Unicode Cc: C0 including tab and newline, DEL, C1);
//   - format characters (Cf): the bidirectional marks, embeddings,
//     overrides and isolates (U+061C, U+200E–F, U+202A–E, U+2066–9), the
//     zero-width space, joiners and word joiner (U+200B–D, U+2060), the
//     byte-order mark (U+FEFF), the soft hyphen, the tag characters;
//   - the line and paragraph separators (U+2028, U+2029);
//   - U+FFFD's cause, invalid UTF-8, is the caller's: see Replace.
func Hidden(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0xa0:
		return r >= 0x80 // C1
	case r == '\u2028', r == '\u2029':
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// Has reports whether s holds a character Hidden refuses, or invalid UTF-8.
func Has(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || Hidden(r) {
			return true
		}
		i += size
	}
	return false
}

// Replace returns s with invalid UTF-8 and every hidden character replaced
// by with (s itself when there is none).
func Replace(s string, with rune) string {
	if !Has(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if (r == utf8.RuneError && size == 1) || Hidden(r) {
			r = with
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Escape returns s fit for a terminal: every hidden character but the
// line breaks and tabs in keep is written as its Go escape (\x1b, \u202e),
// invalid UTF-8 as \xNN; the rest stays as it is.
func Escape(s, keep string) string {
	ok := true
	for _, r := range s {
		if (r == utf8.RuneError || Hidden(r)) && !strings.ContainsRune(keep, r) {
			ok = false
			break
		}
	}
	if ok && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case Hidden(r) && !strings.ContainsRune(keep, r):
			q := strconv.QuoteRune(r) // '\x1b', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Quote is s in double quotes with every hidden or unprintable character
// escaped (strconv.Quote): how a path is named in a message, so that where
// it ends is plain and nothing in it acts on the terminal.
func Quote(s string) string { return strconv.Quote(s) }

// Show is s as it is when nothing in it needs escaping (strconv.Quote would
// add only the quotes), else Quote(s): a path on a line of its own.
func Show(s string) string {
	if q := strconv.Quote(s); q[1:len(q)-1] == s {
		return s
	}
	return Quote(s)
}
