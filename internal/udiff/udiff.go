// Package udiff renders the difference between two texts as a unified diff
// (the format of diff -u and git diff), line by line, using Myers' O(ND)
// algorithm: what a dry run prints, and what a golden test shows on a
// mismatch. It also lays a diff out for a page (view.go: Build, a View
// with line numbers, bounded, every character shown as text) and reads
// git's patches the same way (parse.go: Parse).
package udiff

import (
	"fmt"
	"strings"
)

// op is one line of an edit script.
type op struct {
	kind byte // ' ' kept, '-' deleted from a, '+' inserted from b
	a, b int  // line indexes in a and b (the one that does not apply is the next line's)
}

// Unified is the unified diff turning a into b, with context lines of
// context around each change, under the headers "--- aName" and
// "+++ bName". Equal texts give "". A last line without a newline is marked
// as diff marks it ("\ No newline at end of file").
func Unified(aName, bName, a, b string, context int) string {
	if a == b {
		return ""
	}
	al, bl := split(a), split(b)
	ops := script(al, bl)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", aName, bName)
	for i := 0; i < len(ops); {
		// Find the next change, and the hunk around it: changes closer
		// than 2*context lines share one hunk.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-context)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		end = min(len(ops), end+context)
		hunk := ops[start:end]
		aStart, bStart := hunk[0].a, hunk[0].b
		var aN, bN int
		for _, o := range hunk {
			if o.kind != '+' {
				aN++
			}
			if o.kind != '-' {
				bN++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", rng(aStart, aN), rng(bStart, bN))
		for _, o := range hunk {
			line := ""
			switch o.kind {
			case '+':
				line = bl[o.b]
			default:
				line = al[o.a]
			}
			sb.WriteByte(o.kind)
			sb.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return sb.String()
}

// rng is a hunk header's range: 1-based start and count, "start" alone for
// one line, and the line before for an empty range (as diff writes it).
func rng(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// split cuts s into lines, each keeping its "\n" (the last may lack one).
func split(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// maxEdits bounds the edit distance script searches for: beyond it (two
// texts that share little), the middle that differs is given as removed
// and added whole. The search keeps each d's frontier, so its memory grows
// with the square of d: 1,000 keeps it under 8 MB.
const maxEdits = 1000

// script is an edit script from a to b: the common head and tail kept, and
// for the middle a shortest one (Myers 1986) — for each d, the
// furthest-reaching path on each diagonal k, remembered per d to walk
// back — or, past maxEdits, all of it removed and added.
func script(a, b []string) []op {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ops := make([]op, 0, len(a)+len(b)-head-tail)
	for i := 0; i < head; i++ {
		ops = append(ops, op{' ', i, i})
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	mid, ok := middle(ma, mb)
	if !ok {
		mid = mid[:0]
		for i := range ma {
			mid = append(mid, op{'-', i, 0})
		}
		for j := range mb {
			mid = append(mid, op{'+', len(ma), j})
		}
	}
	for _, o := range mid {
		ops = append(ops, op{o.kind, o.a + head, o.b + head})
	}
	for i := 0; i < tail; i++ {
		ops = append(ops, op{' ', len(a) - tail + i, len(b) - tail + i})
	}
	return ops
}

// middle is a shortest edit script from a to b, or false when it takes
// more than maxEdits edits. Lines are compared by number (interned).
func middle(as, bs []string) ([]op, bool) {
	ids := map[string]int{}
	intern := func(ls []string) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	a, b := intern(as), intern(bs)
	n, m := len(a), len(b)
	maxD := min(n+m, maxEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	// trace[d] is the frontier before step d, diagonals -d..d.
	var trace [][]int
	found := n == 0 && m == 0
	for d := 0; d <= maxD && !found; d++ {
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		return nil, false
	}
	at := func(d, k int) int { return trace[d][k+d] }
	// Walk back from (n, m) through the remembered frontiers.
	var rev []op
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		k := x - y
		var prevK int
		if d == 0 {
			prevK = 0
		} else if k == -d || (k != d && at(d, k-1) < at(d, k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := 0
		if d > 0 {
			prevX = at(d, prevK)
		}
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, op{' ', x, y})
		}
		if d > 0 {
			if x == prevX {
				y--
				rev = append(rev, op{'+', x, y})
			} else {
				x--
				rev = append(rev, op{'-', x, y})
			}
		}
	}
	ops := make([]op, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops, true
}
