package templates

import "io"

// markup writes HTML for the components a board draws once per row, which
// are written in Go rather than templ (row.go): templ formats every
// expression anew and boxes every attribute value, about one allocation
// each, and a board of 40 rows has some 800 of them. Fixed text is written
// as is and every value through esc, which escapes exactly as templ does
// (html.EscapeString), so the bytes are the same. The first error sticks
// and ends the writing.
type markup struct {
	w   io.StringWriter
	err error
}

// newMarkup writes to w: templ's own buffer in a render, which takes
// strings without a copy.
func newMarkup(w io.Writer) *markup {
	if sw, ok := w.(io.StringWriter); ok {
		return &markup{w: sw}
	}
	return &markup{w: stringWriter{w}}
}

// raw writes fixed markup.
func (m *markup) raw(parts ...string) {
	for _, p := range parts {
		if m.err != nil {
			return
		}
		if p != "" {
			_, m.err = m.w.WriteString(p)
		}
	}
}

// esc writes s escaped for text or a quoted attribute value, as
// html.EscapeString (and so templ) escapes it, without building the
// escaped copy.
func (m *markup) esc(s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var r string
		switch s[i] {
		case '&':
			r = "&amp;"
		case '\'':
			r = "&#39;"
		case '<':
			r = "&lt;"
		case '>':
			r = "&gt;"
		case '"':
			r = "&#34;"
		default:
			continue
		}
		m.raw(s[last:i], r)
		last = i + 1
	}
	m.raw(s[last:])
}

// stringWriter lends WriteString to a writer without one.
type stringWriter struct{ io.Writer }

func (w stringWriter) WriteString(s string) (int, error) { return io.WriteString(w.Writer, s) }
