package install

import (
	"bytes"
	"encoding/json"
	"strings"
)

// doc is a settings file being edited as text: every edit splices the text
// and parses it again, so what is not edited stays byte for byte (key
// order, spacing, comments), and every intermediate text is valid.
type doc struct {
	src  []byte
	root *node
	nl   string // the file's line break: "\n", or "\r\n" when it uses those
	unit string // one level of indentation, as the file does it
}

func newDoc(src []byte) (*doc, error) {
	d := &doc{src: src, nl: "\n", unit: "  "}
	if bytes.Contains(src, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	if err := d.parse(); err != nil {
		return nil, err
	}
	// The file's indentation unit: the indentation of the root's first
	// member when it starts its own line.
	if d.root.kind == kObject && len(d.root.members) > 0 {
		if ls, ok := d.lineStart(d.root.members[0].keyStart); ok && ls < d.root.members[0].keyStart {
			d.unit = string(d.src[ls:d.root.members[0].keyStart])
		}
	}
	return d, nil
}

func (d *doc) parse() error {
	root, err := parseJSONC(d.src)
	if err != nil {
		return err
	}
	d.root = root
	return nil
}

// splice replaces src[from:to] with text and parses the result.
func (d *doc) splice(from, to int, text string) error {
	out := make([]byte, 0, len(d.src)-(to-from)+len(text))
	out = append(out, d.src[:from]...)
	out = append(out, text...)
	out = append(out, d.src[to:]...)
	d.src = out
	return d.parse()
}

// lineStart is the start of pos's line and whether only spaces and tabs
// stand between it and pos (pos starts its line).
func (d *doc) lineStart(pos int) (int, bool) {
	i := pos
	for i > 0 && (d.src[i-1] == ' ' || d.src[i-1] == '\t') {
		i--
	}
	if i == 0 || d.src[i-1] == '\n' {
		return i, true
	}
	return pos, false
}

// indentOf is the leading white space of pos's line.
func (d *doc) indentOf(pos int) string {
	ls := bytes.LastIndexByte(d.src[:pos], '\n') + 1
	e := ls
	for e < len(d.src) && (d.src[e] == ' ' || d.src[e] == '\t') {
		e++
	}
	return string(d.src[ls:e])
}

// restOfLine is where pos's line ends once spaces, tabs and a comment on
// that same line are passed: the offset of its line break (or of the end of
// the file), and whether nothing but those stood between pos and it.
func (d *doc) restOfLine(pos int) (int, bool) {
	i := pos
	for i < len(d.src) && (d.src[i] == ' ' || d.src[i] == '\t') {
		i++
	}
	switch {
	case bytes.HasPrefix(d.src[i:], []byte("//")):
		for i < len(d.src) && d.src[i] != '\n' {
			i++
		}
	case bytes.HasPrefix(d.src[i:], []byte("/*")):
		end := indexFrom(d.src, i+2, "*/")
		if end < 0 || bytes.IndexByte(d.src[i:end], '\n') >= 0 {
			return pos, false
		}
		i = end + 2
		for i < len(d.src) && (d.src[i] == ' ' || d.src[i] == '\t') {
			i++
		}
	}
	if i < len(d.src) && d.src[i] == '\r' && i+1 < len(d.src) && d.src[i+1] == '\n' {
		return i, true
	}
	if i == len(d.src) || d.src[i] == '\n' {
		return i, true
	}
	return pos, false
}

// pastLine is the offset just after pos's line break, when nothing but
// spaces, tabs or a same-line comment follows pos on its line; pos itself
// otherwise.
func (d *doc) pastLine(pos int) int {
	i, ok := d.restOfLine(pos)
	if !ok {
		return pos
	}
	if i < len(d.src) && d.src[i] == '\r' {
		i++
	}
	if i < len(d.src) && d.src[i] == '\n' {
		i++
	}
	return i
}

// render is v as JSON: indented with the file's unit from indent on (the
// first line unindented, for it follows a key or stands after an indent),
// with the file's line breaks; compact when indent is "compact". HTML
// characters stay as they are (a URL's & is not \u0026).
func (d *doc) render(v any, indent string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "compact" {
		enc.SetIndent(indent, d.unit)
	}
	if err := enc.Encode(v); err != nil {
		panic(err) // only our own values are rendered
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if d.nl != "\n" {
		s = strings.ReplaceAll(s, "\n", d.nl)
	}
	return s
}

// bare reports whether nothing but white space would be left inside
// container c without its i-th item (no comments, no other items).
func (d *doc) bare(c *node, i int) bool {
	if size(c) != 1 {
		return false
	}
	start, end := item(c, i)
	return len(bytes.TrimSpace(d.src[c.start+1:start])) == 0 && len(bytes.TrimSpace(d.src[end:c.end-1])) == 0
}

// item is where a container's i-th member or element starts and ends.
func item(c *node, i int) (start, end int) {
	if c.kind == kObject {
		return c.members[i].keyStart, c.members[i].val.end
	}
	return c.elems[i].start, c.elems[i].end
}

func size(c *node) int {
	if c.kind == kObject {
		return len(c.members)
	}
	return len(c.elems)
}

// add appends to container c (an object when key is given, else an array)
// the member key: v, or the element v, laid out as the container's items
// are: on its own line at their indentation, or inline in a one-line
// container.
func (d *doc) add(c *node, key string, v any) error {
	prefix := ""
	if c.kind == kObject {
		prefix = d.render(key, "compact") + ": "
	}
	if size(c) == 0 {
		closing := d.indentOf(c.start)
		ind := closing + d.unit
		text := d.nl + ind + prefix + d.render(v, ind)
		inner := d.src[c.start+1 : c.end-1]
		if len(bytes.TrimSpace(inner)) == 0 {
			return d.splice(c.start+1, c.end-1, text+d.nl+closing)
		}
		return d.splice(c.start+1, c.start+1, text) // before the comments inside
	}
	first, _ := item(c, 0)
	_, lastEnd := item(c, size(c)-1)
	if bytes.IndexByte(d.src[c.start:first], '\n') < 0 {
		return d.splice(lastEnd, lastEnd, ", "+prefix+d.render(v, "compact"))
	}
	ind := d.indentOf(c.start) + d.unit
	if _, starts := d.lineStart(first); starts {
		ind = d.indentOf(first)
	}
	at, ok := d.restOfLine(lastEnd)
	if !ok {
		at = lastEnd
	}
	text := string(d.src[lastEnd:at]) + d.nl + ind + prefix + d.render(v, ind)
	return d.splice(lastEnd, at, ","+text)
}

// remove deletes container c's i-th member or element with its comma, and
// its line when it stands on one (a comment on that line goes with it;
// comments on other lines stay). A container left with nothing but white
// space inside closes up ("{}", "[]"). The deletions are made at once, so
// the text is never without a comma it needs or with one it must not have.
func (d *doc) remove(c *node, i int) error {
	n := size(c)
	start, end := item(c, i)
	from, ownLine := d.lineStart(start)
	type span struct{ from, to int }
	var cut []span // in order, not overlapping
	switch {
	case i < n-1:
		to := c.commas[i] + 1
		if ownLine {
			to = d.pastLine(to)
		} else {
			for to < len(d.src) && (d.src[to] == ' ' || d.src[to] == '\t') {
				to++
			}
		}
		cut = []span{{from, to}}
	case n > 1:
		comma := c.commas[i-1]
		if ownLine {
			to := d.pastLine(end)
			if to == end {
				// The container closes on this line: the line break
				// before the item goes instead of the one after it, unless
				// a comment ends the line before (it would swallow the
				// closing bracket); then only the item goes.
				brk := from - 1
				if brk > 0 && d.src[brk-1] == '\r' {
					brk--
				}
				if bytes.IndexByte(d.src[comma:brk], '/') >= 0 {
					from = start
				} else {
					from = brk
				}
			}
			cut = []span{{comma, comma + 1}, {from, to}}
		} else {
			cut = []span{{comma, end}} // ", item" goes as one
		}
	default:
		to := end
		if ownLine {
			to = d.pastLine(end)
		}
		// Closing up: when nothing but white space would be left inside,
		// all of the inside goes.
		rest := append(append([]byte(nil), d.src[c.start+1:from]...), d.src[to:c.end-1]...)
		if len(bytes.TrimSpace(rest)) == 0 {
			from, to = c.start+1, c.end-1
		}
		cut = []span{{from, to}}
	}
	out := make([]byte, 0, len(d.src))
	at := 0
	for _, sp := range cut {
		out = append(out, d.src[at:sp.from]...)
		at = sp.to
	}
	out = append(out, d.src[at:]...)
	d.src = out
	return d.parse()
}
