package web

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
)

// A render is split into a light tree of byte spans so that the next render
// can be compared with it and only the elements that changed sent: a title
// change then costs one row on the wire, not the whole board. Spans index
// the rendered bytes themselves, so what is sent is exactly what templ
// rendered.
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
// It returns nil when the fragment is not a single well-formed element.
func parseSpans(src []byte) *span {
	z := html.NewTokenizer(bytes.NewReader(src))
	root := &span{}
	stack := []*span{root}
	names := []string{""}
	pos := 0
	for {
		tt := z.Next()
		raw := z.Raw()
		start := pos
		pos += len(raw)
		top := stack[len(stack)-1]
		switch tt {
		case html.ErrorToken:
			if len(stack) != 1 || len(root.children) != 1 || root.children[0].text {
				return nil
			}
			return root.children[0]
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			n := &span{start: start, end: pos, openEnd: pos}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "id" {
					n.id = string(v)
				}
			}
			top.children = append(top.children, n)
			if tt == html.StartTagToken && !voidElements[string(name)] {
				stack = append(stack, n)
				names = append(names, string(name))
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(stack) == 1 || names[len(names)-1] != string(name) {
				return nil // not the well-formed markup templ writes
			}
			top.end = pos
			stack, names = stack[:len(stack)-1], names[:len(names)-1]
		default:
			top.children = append(top.children, &span{start: start, end: pos, text: true})
		}
	}
}

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

// delta compares cur with prev (whole fragments; prevSpans is prev parsed,
// or nil) and returns the elements that changed, or nil when the root must
// be sent whole. It also returns cur parsed, for the next comparison.
func delta(prev []byte, prevSpans *span, cur []byte) ([][]byte, *span) {
	cs := parseSpans(cur)
	if prev == nil || cs == nil {
		return nil, cs
	}
	if prevSpans == nil {
		prevSpans = parseSpans(prev)
	}
	if prevSpans == nil {
		return nil, cs
	}
	var out [][]byte
	if !diffSpans(prev, prevSpans, cur, cs, &out) {
		return nil, cs
	}
	// Sending more than half the page piecemeal saves nothing.
	n := 0
	for _, p := range out {
		n += len(p)
	}
	if n*2 > len(cur) || len(out) == 0 {
		return nil, cs
	}
	return out, cs
}

// joinParts is the patch-elements payload for several elements.
func joinParts(parts [][]byte) string {
	var b strings.Builder
	for _, p := range parts {
		b.Write(p)
	}
	return b.String()
}
