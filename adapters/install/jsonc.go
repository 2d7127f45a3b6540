package install

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrSyntax is a settings file that does not parse. Install refuses it and
// leaves it untouched.
var ErrSyntax = errors.New("not valid JSON")

// maxDepth bounds nesting, so that a hostile file cannot exhaust the stack.
const maxDepth = 500

// kind is a JSON value's type.
type kind byte

const (
	kObject kind = iota + 1
	kArray
	kString
	kNumber
	kLiteral // true, false, null
)

// node is one JSON value of a settings file with its place in the text, so
// that edits can be made to the text itself: everything not edited (key
// order, spacing, comments) stays byte for byte.
type node struct {
	kind       kind
	start, end int      // the value's bytes: src[start:end]
	members    []member // an object's, in order
	elems      []*node  // an array's, in order
	// commas[i] is the offset of the comma after member or element i.
	commas []int
	str    string // a string's decoded value, a number's or literal's text
}

// member is an object member: its key (decoded) and where it starts.
type member struct {
	key      string
	keyStart int
	val      *node
}

// get is the last member named key (JSON readers keep the last), nil when
// there is none.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kObject {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// count is how many members named key an object has.
func (n *node) count(key string) int {
	c := 0
	for _, m := range n.members {
		if m.key == key {
			c++
		}
	}
	return c
}

// value is the node as encoding/json would decode it into an any (numbers
// as float64), for comparing an entry with the one we would write.
func (n *node) value() any {
	switch n.kind {
	case kObject:
		m := make(map[string]any, len(n.members))
		for _, mb := range n.members {
			m[mb.key] = mb.val.value()
		}
		return m
	case kArray:
		a := make([]any, len(n.elems))
		for i, e := range n.elems {
			a[i] = e.value()
		}
		return a
	case kString:
		return n.str
	case kNumber:
		f, _ := strconv.ParseFloat(n.str, 64)
		return f
	}
	switch n.str {
	case "true":
		return true
	case "false":
		return false
	}
	return nil
}

// parser reads JSON with comments (// and /* */, as Gemini CLI's settings
// allow) and nothing else beyond RFC 8259: no trailing commas, no single
// quotes, valid UTF-8.
type parser struct {
	src []byte
	pos int
}

// SyntaxError is where and why a settings file does not parse. It wraps
// ErrSyntax.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

// Error says "line L, column C: why".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%v: line %d, column %d: %s", ErrSyntax, e.Line, e.Col, e.Msg)
}

// Unwrap lets errors.Is see ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// parseJSONC parses a whole settings file into its root value.
func parseJSONC(src []byte) (*node, error) {
	if !utf8.Valid(src) {
		i := 0
		for i < len(src) {
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		p := &parser{src: src, pos: i}
		return nil, p.fail("the file is not UTF-8")
	}
	p := &parser{src: src}
	if len(src) >= 3 && string(src[:3]) == "\xef\xbb\xbf" {
		p.pos = 3
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos < len(src) {
		return nil, p.fail("unexpected text after the top-level value")
	}
	return n, nil
}

func (p *parser) fail(msg string) error {
	line, col := 1, 1
	for _, c := range p.src[:min(p.pos, len(p.src))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Col: col, Msg: msg}
}

// space skips white space and comments.
func (p *parser) space() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := indexFrom(p.src, p.pos+2, "*/")
			if end < 0 {
				return p.fail("unterminated /* comment")
			}
			p.pos = end + 2
		default:
			return nil
		}
	}
	return nil
}

func indexFrom(b []byte, from int, sub string) int {
	for i := from; i+len(sub) <= len(b); i++ {
		if string(b[i:i+len(sub)]) == sub {
			return i
		}
	}
	return -1
}

func (p *parser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, p.fail("nested too deeply")
	}
	if p.pos >= len(p.src) {
		return nil, p.fail("unexpected end of file")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		start := p.pos
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &node{kind: kString, start: start, end: p.pos, str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(p.src)-p.pos >= len(lit) && string(p.src[p.pos:p.pos+len(lit)]) == lit {
				n := &node{kind: kLiteral, start: p.pos, end: p.pos + len(lit), str: lit}
				p.pos += len(lit)
				return n, nil
			}
		}
	}
	return nil, p.fail(fmt.Sprintf("unexpected %q", rune(p.src[p.pos])))
}

func (p *parser) object(depth int) (*node, error) {
	n := &node{kind: kObject, start: p.pos}
	p.pos++
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.fail("expected a \"key\"")
		}
		keyStart := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.fail("expected ':' after a key")
		}
		p.pos++
		if err := p.space(); err != nil {
			return nil, err
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, keyStart: keyStart, val: v})
		done, err := p.next(n, '}', "an object")
		if err != nil {
			return nil, err
		}
		if done {
			return n, nil
		}
	}
}

func (p *parser) array(depth int) (*node, error) {
	n := &node{kind: kArray, start: p.pos}
	p.pos++
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		done, err := p.next(n, ']', "an array")
		if err != nil {
			return nil, err
		}
		if done {
			return n, nil
		}
	}
}

// next reads what follows an item of the object or array n: a comma (its
// place kept, for edits) and the space after it, or the closing bracket,
// which ends n (done). Anything else, or the end of the file, is an error
// naming what (an object, an array).
func (p *parser) next(n *node, closing byte, what string) (done bool, err error) {
	if err := p.space(); err != nil {
		return false, err
	}
	if p.pos >= len(p.src) {
		return false, p.fail("unexpected end of file in " + what)
	}
	switch p.src[p.pos] {
	case ',':
		n.commas = append(n.commas, p.pos)
		p.pos++
		return false, p.space()
	case closing:
		p.pos++
		n.end = p.pos
		return true, nil
	}
	return false, p.fail(fmt.Sprintf("expected ',' or '%c' in %s", closing, what))
}

// string reads a string at p.pos (its opening quote) and decodes it.
func (p *parser) string() (string, error) {
	p.pos++ // the opening quote
	var out []byte
	for {
		if p.pos >= len(p.src) {
			return "", p.fail("unterminated string")
		}
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(out), nil
		case c < 0x20:
			return "", p.fail("a control character in a string")
		case c != '\\':
			out = append(out, c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.src) {
			return "", p.fail("unterminated string")
		}
		esc := p.src[p.pos+1]
		p.pos += 2
		switch esc {
		case '"', '\\', '/':
			out = append(out, esc)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.fail("a bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// A pair makes one rune; a lone half is U+FFFD, as
				// encoding/json decodes it.
				save := p.pos
				if p.pos+1 < len(p.src) && p.src[p.pos] == '\\' && p.src[p.pos+1] == 'u' {
					p.pos += 2
					if r2, ok := p.hex4(); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							continue
						}
					}
				}
				p.pos = save
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default:
			p.pos -= 2
			return "", p.fail(fmt.Sprintf("a bad escape \\%c", esc))
		}
	}
}

func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.src[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(v), true
}

// number reads a number as RFC 8259 spells it.
func (p *parser) number() (*node, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.src[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.src) && p.src[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.fail("a bad number")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.fail("a bad number")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.fail("a bad number")
		}
	}
	return &node{kind: kNumber, start: start, end: p.pos, str: string(p.src[start:p.pos])}, nil
}
