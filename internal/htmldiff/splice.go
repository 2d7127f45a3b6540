package htmldiff

import "bytes"

// splice diffs cur against prev when cur differs from prev only inside one
// element below the root (a row's new title, say), and turns prev's tree
// into cur's in place: that element is parsed again, and the nodes after it
// are moved by the change in length. A board's render is tens of kilobytes
// and a change is mostly one row, so parsing the whole of it to find that
// row was half of a change's work in the hub. The tree it leaves is the one
// parseSpans(cur) builds, node for node (FuzzSplice holds them equal), and
// the patch is the one diffSpans finds (FuzzDiff). It reports false, with
// prev untouched, when it cannot tell (the difference reaches the root's
// own tags, or the element's new bytes are not one element); then cur must
// be parsed whole. With true, a nil out means the root must be sent whole.
func splice(prev *spans, cur []byte) (out [][]byte, ok bool) {
	src := prev.src
	lo := commonPrefix(src, cur)
	hi := len(src) - commonSuffix(src, cur, min(len(src), len(cur))-lo)
	// src[lo:hi] became cur[lo:hi+delta]. Find the smallest element whose
	// first and last bytes are outside that: its start and end tags are
	// unchanged, so its new self is cur's bytes between them. path holds
	// its ancestors, root first.
	e := prev.root
	if n := &prev.nodes[e]; n.start >= lo || n.end <= hi {
		return nil, false
	}
	var pathBuf [16]int
	path := pathBuf[:0]
	for {
		inner := -1
		for c := prev.nodes[e].first; c >= 0; c = prev.nodes[c].next {
			n := &prev.nodes[c]
			if n.start >= hi {
				break
			}
			if !n.text && n.start < lo && n.end > hi {
				inner = c
				break
			}
		}
		if inner < 0 {
			break
		}
		path = append(path, e)
		e = inner
	}
	if e == prev.root {
		return nil, false
	}
	delta := len(cur) - len(src)
	old := prev.nodes[e]
	sub := parseSpans(cur[old.start : old.end+delta])
	if sub == nil {
		return nil, false
	}
	defer nodePool.Put(&sub.nodes)
	// The new bytes must be one element, start to end: they begin with
	// the old start tag's '<' and end with its end tag's '>', so nothing
	// but a different nesting could make them more.
	if r := &sub.nodes[sub.root]; sub.root != 1 || r.start != 0 || r.end != old.end+delta-old.start || r.next >= 0 {
		return nil, false
	}

	// The patch. Everything outside the element is the same bytes, so
	// diffSpans from the root would walk down the ancestors to it: what it
	// finds there is the patch, or, when the element cannot be patched
	// from its old self, its nearest ancestor with an id, whole.
	if !diffSpans(&spans{src: src, nodes: prev.nodes, root: e}, e, sub, sub.root, &out) {
		out = out[:0]
		whole := true
		for i := len(path) - 1; i > 0; i-- { // path[0] is the root: sent whole
			if a := &prev.nodes[path[i]]; a.idEnd > a.idStart {
				out, whole = append(out, cur[a.start:a.end+delta]), false
				break
			}
		}
		if whole {
			out = nil
		}
	}

	// prev becomes cur's tree. Its nodes are in document order, so the old
	// element's subtree is nodes[e:end], and the new one takes its place.
	end := e + 1
	for end < len(prev.nodes) && prev.nodes[end].start < old.end {
		end++
	}
	added := len(sub.nodes) - 1
	shift := added - (end - e)
	nodes := prev.nodes
	if shift != 0 {
		if shift > 0 {
			nodes = append(nodes, make([]span, shift)...)
		}
		copy(nodes[end+shift:], prev.nodes[end:])
		nodes = nodes[:len(prev.nodes)+shift]
		// Links that pointed past the element move with what they point at.
		for i := range nodes {
			if i >= e && i < e+added {
				continue // the new element's, set below
			}
			n := &nodes[i]
			if n.first >= end {
				n.first += shift
			}
			if n.last >= end {
				n.last += shift
			}
			if n.next >= end {
				n.next += shift
			}
		}
	}
	for _, a := range path { // the ancestors end later
		nodes[a].end += delta
	}
	next := old.next
	if next >= end {
		next += shift
	}
	for k, n := range sub.nodes[1:] {
		n = moved(n, old.start)
		if k == 0 {
			n.next = next
		} else if n.next >= 0 {
			n.next += e - 1
		}
		if n.first >= 0 {
			n.first, n.last = n.first+e-1, n.last+e-1
		}
		nodes[e+k] = n
	}
	if delta != 0 {
		for i := e + added; i < len(nodes); i++ {
			nodes[i] = moved(nodes[i], delta)
		}
	}
	prev.src, prev.nodes = cur, nodes
	return out, true
}

// moved is n with its offsets moved by d.
func moved(n span, d int) span {
	n.start += d
	n.end += d
	if n.text {
		return n
	}
	n.openEnd += d
	n.nameEnd += d
	if n.idStart > 0 { // an id attribute can never start at 0; none is 0, 0
		n.idStart += d
		n.idEnd += d
	}
	return n
}

// compareBlock is how much commonPrefix and commonSuffix compare at once:
// bytes.Equal is vectorised, a byte loop is not.
const compareBlock = 256

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+compareBlock <= n && bytes.Equal(a[i:i+compareBlock], b[i:i+compareBlock]) {
		i += compareBlock
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of the longest common suffix of a and b, at
// most limit.
func commonSuffix(a, b []byte, limit int) int {
	i := 0
	for i+compareBlock <= limit && bytes.Equal(a[len(a)-i-compareBlock:len(a)-i], b[len(b)-i-compareBlock:len(b)-i]) {
		i += compareBlock
	}
	for i < limit && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
