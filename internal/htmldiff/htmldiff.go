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
	"sync"
)

// span is a node of a render's light tree of byte spans: it indexes the
// rendered bytes themselves. The nodes of a tree live in one slice and
// point at each other by index, so a parse allocates that slice and not a
// node at a time (the hub parses every render).
type span struct {
	start, end     int  // the element's outer bytes
	openEnd        int  // end of its start tag
	idStart, idEnd int  // its id attribute's value (empty: none)
	nameEnd        int  // its name is src[start+1:nameEnd]
	first, last    int  // its first and last child (-1: none)
	next           int  // its next sibling (-1: none)
	children       int  // how many
	text           bool // a text or comment node between elements
}

// spans is a parsed fragment: its nodes, the root element at root.
type spans struct {
	src   []byte
	nodes []span
	root  int
}

func (t *spans) id(i int) []byte { n := &t.nodes[i]; return t.src[n.idStart:n.idEnd] }

// add appends a node as the last child of parent and returns its index.
func (t *spans) add(parent int, n span) int {
	n.first, n.last, n.next = -1, -1, -1
	i := len(t.nodes)
	t.nodes = append(t.nodes, n)
	p := &t.nodes[parent]
	if p.last < 0 {
		p.first = i
	} else {
		t.nodes[p.last].next = i
	}
	p.last = i
	p.children++
	return i
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
// which only costs a whole-page patch. It allocates the node slice and its
// stack and nothing else: the hub runs it on every render.
func parseSpans(src []byte) *spans {
	// Each element has two '<' (its start and end tags), and there is
	// at most a text node after each; append grows it past that.
	lts := bytes.Count(src, []byte("<"))
	t := &spans{src: src}
	if p, _ := nodePool.Get().(*[]span); p != nil && cap(*p) >= lts+lts/2+2 {
		t.nodes = (*p)[:1]
	} else {
		t.nodes = make([]span, 1, lts+lts/2+2)
	}
	t.nodes[0] = span{first: -1, last: -1, next: -1}
	stack := make([]int, 1, 32)
	pos, textStart := 0, 0
	flushText := func(end int) {
		if end > textStart {
			t.add(stack[len(stack)-1], span{start: textStart, end: end, text: true})
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
		case bytes.HasPrefix(src[lt:], []byte("<!--")):
			end := bytes.Index(src[lt+4:], []byte("-->"))
			if end < 0 {
				return nil
			}
			pos = lt + 4 + end + 3
			t.add(stack[len(stack)-1], span{start: lt, end: pos, text: true})
		case lt+1 < len(src) && src[lt+1] == '/':
			gt := bytes.IndexByte(src[lt:], '>')
			if gt < 0 || len(stack) == 1 {
				return nil
			}
			top := &t.nodes[stack[len(stack)-1]]
			name := bytes.TrimSpace(src[lt+2 : lt+gt])
			if !bytes.EqualFold(name, src[top.start+1:top.nameEnd]) {
				return nil
			}
			pos = lt + gt + 1
			top.end = pos
			stack = stack[:len(stack)-1]
		default:
			n, selfClosing, ok := scanStartTag(src, lt)
			if !ok {
				return nil
			}
			pos = n.end
			i := t.add(stack[len(stack)-1], n)
			if !selfClosing && !isVoid(src[lt+1:n.nameEnd]) {
				stack = append(stack, i)
			}
		}
		textStart = pos
	}
	if len(stack) != 1 {
		return nil
	}
	flushText(len(src))
	t.root = -1
	for c := t.nodes[0].first; c >= 0; c = t.nodes[c].next {
		n := &t.nodes[c]
		if n.text {
			if len(bytes.TrimSpace(src[n.start:n.end])) > 0 {
				return nil
			}
			continue
		}
		if t.root >= 0 {
			return nil
		}
		t.root = c
	}
	if t.root < 0 {
		return nil
	}
	return t
}

// isVoid reports whether an element of this name never has an end tag,
// whatever the name's case.
func isVoid(name []byte) bool {
	var lower [6]byte
	if len(name) > len(lower) {
		return false
	}
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return voidElements[string(lower[:len(name)])]
}

// scanStartTag reads the start tag at src[lt] ('<'): its span (with where
// the value of an id attribute is, and where its name ends), whether it
// closes itself, and whether it is a tag templ would write at all.
func scanStartTag(src []byte, lt int) (span, bool, bool) {
	i := lt + 1
	for i < len(src) && isNameByte(src[i]) {
		i++
	}
	if i == lt+1 || !isLetter(src[lt+1]) {
		return span{}, false, false
	}
	n := span{start: lt, nameEnd: i}
	for {
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		if i >= len(src) {
			return span{}, false, false
		}
		switch src[i] {
		case '>':
			n.end, n.openEnd = i+1, i+1
			return n, false, true
		case '/':
			if i+1 < len(src) && src[i+1] == '>' {
				n.end, n.openEnd = i+2, i+2
				return n, true, true
			}
			return span{}, false, false
		}
		k := i
		for i < len(src) && !isSpace(src[i]) && src[i] != '=' && src[i] != '>' && src[i] != '/' {
			i++
		}
		key := src[k:i]
		if len(key) == 0 {
			return span{}, false, false
		}
		if i < len(src) && src[i] == '=' {
			i++
			if i >= len(src) || (src[i] != '"' && src[i] != '\'') {
				return span{}, false, false // templ quotes every value
			}
			q := src[i]
			end := bytes.IndexByte(src[i+1:], q)
			if end < 0 {
				return span{}, false, false
			}
			if string(key) == "id" {
				n.idStart, n.idEnd = i+1, i+1+end
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
func diffSpans(prev *spans, pi int, cur *spans, ci int, out *[][]byte) bool {
	pn, cn := &prev.nodes[pi], &cur.nodes[ci]
	p, c := prev.src[pn.start:pn.end], cur.src[cn.start:cn.end]
	if bytes.Equal(p, c) {
		return true
	}
	// Patching an element by id replaces it whole, so descend only when its
	// own start tag is unchanged and its children line up one to one; an
	// element without an id can only change through its descendants.
	sameOpen := bytes.Equal(prev.src[pn.start:pn.openEnd], cur.src[cn.start:cn.openEnd])
	if sameOpen && pn.children == cn.children {
		mark := len(*out)
		ok := true
		for pc, cc := pn.first, cn.first; pc >= 0; pc, cc = prev.nodes[pc].next, cur.nodes[cc].next {
			pcn, ccn := &prev.nodes[pc], &cur.nodes[cc]
			if pcn.text != ccn.text || !bytes.Equal(prev.id(pc), cur.id(cc)) {
				ok = false
				break
			}
			if pcn.text {
				if !bytes.Equal(prev.src[pcn.start:pcn.end], cur.src[ccn.start:ccn.end]) {
					ok = false
					break
				}
				continue
			}
			if !diffSpans(prev, pc, cur, cc, out) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
		*out = (*out)[:mark]
	}
	if len(cur.id(ci)) == 0 || !bytes.Equal(cur.id(ci), prev.id(pi)) {
		return false
	}
	*out = append(*out, c)
	return true
}

// Tree is a fragment parsed for Diff. Keep the Tree of a render to compare
// the next render with it without parsing it again.
type Tree struct{ spans *spans }

// nodePool holds the node slices of trees done with (Recycle): a board's
// tree is a few thousand nodes, and making a new slice for every render
// was most of what a change allocated.
var nodePool sync.Pool

// Recycle hands the tree's memory to the next Parse; t must not be used
// again (the patches Diff returned are the render's bytes, not the
// tree's, and stay valid). A nil t is a no-op.
func (t *Tree) Recycle() {
	if t == nil || t.spans == nil {
		return
	}
	nodes := t.spans.nodes
	t.spans = nil
	nodePool.Put(&nodes)
}

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
// next comparison. Diff takes prevTree over: a cur that differs from prev
// inside one element turns it into cur's tree (splice), and otherwise it
// is recycled; the caller must not use it again.
func Diff(prev []byte, prevTree *Tree, cur []byte) ([][]byte, *Tree) {
	if prevTree != nil && (prevTree.spans == nil || prev == nil || !bytes.Equal(prevTree.spans.src, prev)) {
		prevTree.Recycle()
		prevTree = nil
	}
	if prevTree != nil {
		if out, ok := splice(prevTree.spans, cur); ok {
			return worthIt(out, cur), prevTree
		}
	}
	ct := Parse(cur)
	if prev == nil || ct == nil {
		prevTree.Recycle()
		return nil, ct
	}
	if prevTree == nil {
		prevTree = Parse(prev)
	}
	if prevTree == nil {
		return nil, ct
	}
	defer prevTree.Recycle()
	var out [][]byte
	if !diffSpans(prevTree.spans, prevTree.spans.root, ct.spans, ct.spans.root, &out) {
		return nil, ct
	}
	return worthIt(out, cur), ct
}

// worthIt is the patch out, or nil (the root whole) when it is nothing or
// more than half the page: sending that piecemeal saves nothing.
func worthIt(out [][]byte, cur []byte) [][]byte {
	n := 0
	for _, p := range out {
		n += len(p)
	}
	if n*2 > len(cur) || len(out) == 0 {
		return nil
	}
	return out
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
		if ps == nil || len(ps.id(ps.root)) == 0 {
			return nil, fmt.Errorf("a part is not one element with an id: %.80q", p)
		}
		root := parseSpans(page)
		if root == nil {
			return nil, errors.New("the page is not one well-formed element")
		}
		target := findSpan(root, root.root, ps.id(ps.root))
		if target < 0 {
			return nil, fmt.Errorf("part #%s has no element to replace", ps.id(ps.root))
		}
		n := root.nodes[target]
		page = append(append(append([]byte{}, page[:n.start]...), p...), page[n.end:]...)
	}
	return page, nil
}

func findSpan(t *spans, i int, id []byte) int {
	if bytes.Equal(t.id(i), id) {
		return i
	}
	for c := t.nodes[i].first; c >= 0; c = t.nodes[c].next {
		if f := findSpan(t, c, id); f >= 0 {
			return f
		}
	}
	return -1
}
