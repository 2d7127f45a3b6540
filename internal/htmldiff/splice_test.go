package htmldiff

import (
	"slices"
	"strings"
	"testing"
)

// board is a fragment shaped like the hub's: a root, a tab, groups of
// rows, each row with its own id and children.
func board(titles ...string) string {
	var b strings.Builder
	b.WriteString(`<div id="board" class="b"><header id="tab"><span class="dot"></span>3 working</header><section id="g-1"><h2>proj</h2><ul>`)
	for i, t := range titles {
		b.WriteString(`<li id="row-` + string(rune('a'+i)) + `" data-since="1"><svg viewBox="0 0 8 8"><path d="M0 0" /></svg><b class="t">` + t + `</b><input value="` + t + `"><!-- c --></li>`)
	}
	b.WriteString(`</ul></section></div>`)
	return b.String()
}

// The hub's common case: one row's title changes. Only that row is parsed
// again, and the tree is the one a whole parse builds; where splice cannot
// tell, the old tree is left as it was.
func TestSpliceTakesTheChangedElement(t *testing.T) {
	for _, tc := range []struct {
		name      string
		prev, cur string
		spliced   bool // splice can tell (else the whole is parsed)
	}{
		{"a title longer", board("one", "two", "three"), board("one", "two, and longer", "three"), true},
		{"a title shorter", board("one", "two", "three"), board("one", "t", "three"), true},
		{"the first row", board("one", "two", "three"), board("ONE", "two", "three"), true},
		{"the last row", board("one", "two", "three"), board("one", "two", "3"), true},
		{"two rows: their list", board("one", "two", "three"), board("1", "two", "3"), true},
		{"a row added", board("one", "two"), board("one", "two", "three"), true},
		{"a row removed", board("one", "two", "three"), board("one", "three"), true},
		{"an attribute inside a row", board("one"), strings.Replace(board("one"), `data-since="1"`, `data-since="22"`, 1), true},
		{"the root's own tag", board("one"), strings.Replace(board("one"), `class="b"`, `class="c"`, 1), false},
		{"the tab and a row", board("one", "two"), strings.Replace(board("one", "TWO"), "3 working", "2 working", 1), false},
		{"the same", board("one"), board("one"), false},
		{"an element without an id grows: its row whole", `<div id="b"><p id="r1"><i>a</i></p><p id="r2"><i>b</i></p></div>`, `<div id="b"><p id="r1"><i>a</i></p><p id="r2"><i>b</i><i>c</i></p></div>`, true},
		{"two elements where one was: parsed whole", `<div id="b"><p><i>a</i></p><p><i>bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</i></p></div>`, `<div id="b"><p><i>a</i></p><p><i>b</i><i>c</i></p></div>`, false},
		{"a row broken", board("one", "two"), strings.Replace(board("one", "two"), `</b><input value="two">`, `<input value="two">`, 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev := parseSpans([]byte(tc.prev))
			if prev == nil {
				t.Fatal("prev does not parse")
			}
			_, ok := splice(prev, []byte(tc.cur))
			if ok != tc.spliced {
				t.Fatalf("spliced = %v, want %v", ok, tc.spliced)
			}
			if ok {
				sameTree(t, prev, []byte(tc.cur))
			} else {
				sameTree(t, prev, []byte(tc.prev)) // untouched
			}
			// The patch is the one a diff from scratch finds.
			want, _ := Diff([]byte(tc.prev), nil, []byte(tc.cur))
			got, _ := Diff([]byte(tc.prev), Parse([]byte(tc.prev)), []byte(tc.cur))
			if !slices.EqualFunc(got, want, func(a, b []byte) bool { return string(a) == string(b) }) {
				t.Fatalf("patch with the kept tree %q, from scratch %q", got, want)
			}
		})
	}
}

// sameTree fails unless s is the tree parseSpans builds of src.
func sameTree(t *testing.T, s *spans, src []byte) {
	t.Helper()
	want := parseSpans(src)
	if want == nil {
		t.Fatalf("spliced a tree of %q, which does not parse", src)
	}
	if s.root != want.root || !slices.Equal(s.nodes, want.nodes) || string(s.src) != string(src) {
		t.Fatalf("spliced tree differs from the parse of %q:\n got root %d %+v\nwant root %d %+v", src, s.root, s.nodes, want.root, want.nodes)
	}
}

// FuzzSplice holds splice to a whole parse: whenever it builds a tree, it
// is node for node the tree parseSpans builds, and when it cannot, it
// leaves the old tree as it was. (FuzzDiff holds its patch to diffSpans's.)
func FuzzSplice(f *testing.F) {
	// Seeds: a row's title, a row added and removed, a void element's
	// value, a comment, a change that breaks the nesting, the root's tag.
	f.Add(board("one", "two"), board("one", "TWO"))
	f.Add(board("one"), board("one", "two"))
	f.Add(board("one", "two"), board("two"))
	f.Add(`<div id="b"><input id="i" value="1"><p id="p">a</p></div>`, `<div id="b"><input id="i" value="22"><p id="p">a</p></div>`)
	f.Add(`<div id="b"><p><!-- x --></p><p>y</p></div>`, `<div id="b"><p><!-- xx --></p><p>y</p></div>`)
	f.Add(`<div id="b"><p><i>x</i></p></div>`, `<div id="b"><p><i>x</p></i></div>`)
	f.Add(`<div id="b"><p>x</p></div>`, `<div id="c"><p>x</p></div>`)
	f.Add(`<div id="b"><p>x</p> </div>`, `<div id="b"><p>x</p><p>y</p> </div>`)
	f.Fuzz(func(t *testing.T, prev, cur string) {
		p := parseSpans([]byte(prev))
		if p == nil {
			return
		}
		if _, ok := splice(p, []byte(cur)); ok {
			sameTree(t, p, []byte(cur))
		} else {
			sameTree(t, p, []byte(prev)) // untouched
		}
	})
}
