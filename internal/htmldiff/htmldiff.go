// Package htmldiff finds the elements that changed between two renders of
// one HTML fragment, so that a live page can be patched by element id with
// only those (a new title then costs one row on the wire, not the board).
// It reads markup the way templ writes it — quoted attributes, explicit end
// tags, no raw-text elements in a fragment — and gives up on anything else,
// which only costs a whole-fragment patch. What it returns are slices of the
// rendered bytes themselves, so what is sent is exactly what was rendered.
package htmldiff

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// span is a node of a render's light tree of byte spans: it indexes the
// rendered bytes themselves.
type span struct {
	id         string
	start, end int // the element's outer bytes
	openEnd    int // end of its start tag
	children   []*span
	text       bool // a text or comment node between elements
}

// voidElements never have an end tag.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
}

// parseSpans builds the span tree of an HTML fragment with one root element.
// It returns nil when the fragment is not a single well-formed element. It
// reads markup the way templ writes it (quoted attributes, explicit end
// tags, no raw-text elements in a fragment) and gives up on anything else,
// which only costs a whole-page patch. It allocates nothing but the spans:
// the hub runs it on every render.
func parseSpans(src []byte) *span {
	root := &span{}
	stack := []*span{root}
	var names [][]byte
	pos, textStart := 0, 0
	flushText := func(end int) {
		if end > textStart {
			top := stack[len(stack)-1]
			top.children = append(top.children, &span{start: textStart, end: end, text: true})
		}
	}
	for pos < len(src) {
		lt := bytes.IndexByte(src[pos:], '<')
		if lt < 0 {
			break
		}
		lt += pos
		flushText(lt)
		switch {
		case strings.HasPrefix(string(src[lt:min(lt+4, len(src))]), "<!--"):
			end := bytes.Index(src[lt+4:], []byte("-->"))
			if end < 0 {
				return nil
			}
			pos = lt + 4 + end + 3
			top := stack[len(stack)-1]
			top.children = append(top.children, &span{start: lt, end: pos, text: true})
		case lt+1 < len(src) && src[lt+1] == '/':
			gt := bytes.IndexByte(src[lt:], '>')
			if gt < 0 || len(names) == 0 {
				return nil
			}
			name := bytes.TrimSpace(src[lt+2 : lt+gt])
			if !bytes.EqualFold(name, names[len(names)-1]) {
				return nil
			}
			pos = lt + gt + 1
			stack[len(stack)-1].end = pos
			stack, names = stack[:len(stack)-1], names[:len(names)-1]
		default:
			n, name, selfClosing, end := scanStartTag(src, lt)
			if n == nil {
				return nil
			}
			pos = end
			top := stack[len(stack)-1]
			top.children = append(top.children, n)
			if !selfClosing && !voidElements[string(name)] {
				stack = append(stack, n)
				names = append(names, name)
			}
		}
		textStart = pos
	}
	if len(stack) != 1 {
		return nil
	}
	flushText(len(src))
	var only *span
	for _, c := range root.children {
		if c.text {
			if len(bytes.TrimSpace(src[c.start:c.end])) > 0 {
				return nil
			}
			continue
		}
		if only != nil {
			return nil
		}
		only = c
	}
	return only
}

// scanStartTag reads the start tag at src[lt] ('<'): its span (with the
// value of an id attribute), the lower-case name, whether it closes itself,
// and where it ends. A nil span means it is not a tag templ would write.
func scanStartTag(src []byte, lt int) (*span, []byte, bool, int) {
	i := lt + 1
	for i < len(src) && isNameByte(src[i]) {
		i++
	}
	name := src[lt+1 : i]
	if len(name) == 0 || !isLetter(name[0]) {
		return nil, nil, false, 0
	}
	n := &span{start: lt}
	for {
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		if i >= len(src) {
			return nil, nil, false, 0
		}
		switch src[i] {
		case '>':
			n.end, n.openEnd = i+1, i+1
			return n, bytes.ToLower(name), false, i + 1
		case '/':
			if i+1 < len(src) && src[i+1] == '>' {
				n.end, n.openEnd = i+2, i+2
				return n, bytes.ToLower(name), true, i + 2
			}
			return nil, nil, false, 0
		}
		k := i
		for i < len(src) && !isSpace(src[i]) && src[i] != '=' && src[i] != '>' && src[i] != '/' {
			i++
		}
		key := src[k:i]
		if len(key) == 0 {
			return nil, nil, false, 0
		}
		if i < len(src) && src[i] == '=' {
			i++
			if i >= len(src) || (src[i] != '"' && src[i] != '\'') {
				return nil, nil, false, 0 // templ quotes every value
			}
			q := src[i]
			end := bytes.IndexByte(src[i+1:], q)
			if end < 0 {
				return nil, nil, false, 0
			}
			if string(key) == "id" {
				n.id = string(src[i+1 : i+1+end])
			}
			i += end + 2
		}
	}
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isNameByte(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '-' || c == ':' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// diffSpans appends to out the outer bytes of the smallest set of id'd
// elements of cur that, patched by id, turn prev into cur. It reports false
// when no such set exists (the root itself must be replaced).
func diffSpans(prevSrc []byte, prev *span, curSrc []byte, cur *span, out *[][]byte) bool {
	p, c := prevSrc[prev.start:prev.end], curSrc[cur.start:cur.end]
	if bytes.Equal(p, c) {
		return true
	}
	// Patching an element by id replaces it whole, so descend only when its
	// own start tag is unchanged and its children line up one to one; an
	// element without an id can only change through its descendants.
	sameOpen := bytes.Equal(prevSrc[prev.start:prev.openEnd], curSrc[cur.start:cur.openEnd])
	if sameOpen && len(prev.children) == len(cur.children) {
		var sub [][]byte
		ok := true
		for i, pc := range prev.children {
			cc := cur.children[i]
			if pc.text != cc.text || pc.id != cc.id {
				ok = false
				break
			}
			if pc.text {
				if !bytes.Equal(prevSrc[pc.start:pc.end], curSrc[cc.start:cc.end]) {
					ok = false
					break
				}
				continue
			}
			if !diffSpans(prevSrc, pc, curSrc, cc, &sub) {
				ok = false
				break
			}
		}
		if ok {
			*out = append(*out, sub...)
			return true
		}
	}
	if cur.id == "" || cur.id != prev.id {
		return false
	}
	*out = append(*out, c)
	return true
}

// Tree is a fragment parsed for Diff. Keep the Tree of a render to compare
// the next render with it without parsing it again.
type Tree struct{ root *span }

// Parse parses a fragment with one root element, or returns nil when it is
// not one well-formed element.
func Parse(src []byte) *Tree {
	if s := parseSpans(src); s != nil {
		return &Tree{s}
	}
	return nil
}

// Diff compares cur with prev (whole fragments; prevTree is prev parsed, or
// nil) and returns the elements of cur that changed — each an element with
// an id, which a patch by id turns from its old self into the new — or nil
// when the root must be sent whole. It also returns cur parsed, for the
// next comparison.
func Diff(prev []byte, prevTree *Tree, cur []byte) ([][]byte, *Tree) {
	ct := Parse(cur)
	if prev == nil || ct == nil {
		return nil, ct
	}
	if prevTree == nil {
		prevTree = Parse(prev)
	}
	if prevTree == nil {
		return nil, ct
	}
	prevSpans, cs := prevTree.root, ct.root
	var out [][]byte
	if !diffSpans(prev, prevSpans, cur, cs, &out) {
		return nil, ct
	}
	// Sending more than half the page piecemeal saves nothing.
	n := 0
	for _, p := range out {
		n += len(p)
	}
	if n*2 > len(cur) || len(out) == 0 {
		return nil, ct
	}
	return out, ct
}

// Join is the patch payload for several elements: their bytes, in order.
func Join(parts [][]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// Apply does what a browser patching by id does: each part replaces the
// element of page that has its id. It fails when a part is not one element
// with an id, or names an id page does not hold.
func Apply(page []byte, parts [][]byte) ([]byte, error) {
	for _, p := range parts {
		ps := parseSpans(p)
		if ps == nil || ps.id == "" {
			return nil, fmt.Errorf("a part is not one element with an id: %.80q", p)
		}
		root := parseSpans(page)
		if root == nil {
			return nil, errors.New("the page is not one well-formed element")
		}
		target := findSpan(root, ps.id)
		if target == nil {
			return nil, fmt.Errorf("part #%s has no element to replace", ps.id)
		}
		page = append(append(append([]byte{}, page[:target.start]...), p...), page[target.end:]...)
	}
	return page, nil
}

func findSpan(s *span, id string) *span {
	if s.id == id {
		return s
	}
	for _, c := range s.children {
		if f := findSpan(c, id); f != nil {
			return f
		}
	}
	return nil
}
