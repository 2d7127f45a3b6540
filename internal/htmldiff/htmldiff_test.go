package htmldiff

import (
	"testing"
)

func mustApply(t *testing.T, page []byte, parts [][]byte) []byte {
	t.Helper()
	out, err := Apply(page, parts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDeltaRefusesWhatItCannotPatch(t *testing.T) {
	for _, tc := range []struct{ prev, cur string }{
		{`<div id="a"><p>x</p></div>`, `<div id="b"><p>x</p></div>`}, // the root's id changed
		{`<div id="a"><p>x</p></div>`, `<div id="a"><p>y</p></div>`}, // only the root has an id: whole
		{`<div id="a"><p id="p">x</p></div>`, `<div id="a"><p id="p">x</p><p>z</p></div>`},
		{`<div id="a">`, `<div id="a"></div>`}, // malformed
	} {
		parts, _ := Diff([]byte(tc.prev), nil, []byte(tc.cur))
		if parts != nil {
			if got := mustApply(t, []byte(tc.prev), parts); string(got) != tc.cur {
				t.Errorf("Diff(%s → %s) gave a wrong patch %q", tc.prev, tc.cur, parts)
			}
		}
	}
	// Unchanged siblings stay out of the patch.
	prev := `<div id="b"><div id="r1">one</div><div id="r2">two</div><div id="r3">three, a longer row</div></div>`
	cur := `<div id="b"><div id="r1">one</div><div id="r2">TWO</div><div id="r3">three, a longer row</div></div>`
	parts, _ := Diff([]byte(prev), nil, []byte(cur))
	if len(parts) != 1 || string(parts[0]) != `<div id="r2">TWO</div>` {
		t.Errorf("delta = %q, want just r2", parts)
	}
}

func FuzzDiff(f *testing.F) {
	// Seeds: an id'd row list where one row changes, a void element, a
	// text-only change, and broken markup.
	f.Add(`<div id="b"><i id="x">1</i><i id="y">2</i></div>`, `<div id="b"><i id="x">1</i><i id="y">3</i></div>`)
	f.Add(`<div id="b"><input id="i" value="1"><p id="p">a</p></div>`, `<div id="b"><input id="i" value="2"><p id="p">a</p></div>`)
	f.Add(`<div id="b">text</div>`, `<div id="b">other</div>`)
	f.Add(`<div id="b"><p>`, `</div>`)
	f.Fuzz(func(t *testing.T, prev, cur string) {
		parts, _ := Diff([]byte(prev), nil, []byte(cur))
		// With prev's tree kept (the hub's way, which splices), the
		// patch is the same.
		kept, _ := Diff([]byte(prev), Parse([]byte(prev)), []byte(cur))
		if len(kept) != len(parts) {
			t.Fatalf("with the kept tree %q, without %q", kept, parts)
		}
		for i := range kept {
			if string(kept[i]) != string(parts[i]) {
				t.Fatalf("with the kept tree %q, without %q", kept, parts)
			}
		}
		if parts == nil {
			return
		}
		if got := mustApply(t, []byte(prev), parts); string(got) != cur {
			t.Fatalf("patch of %q → %q gave %q", prev, cur, got)
		}
	})
}

func TestParseSpans(t *testing.T) {
	for _, tc := range []struct {
		src  string
		ids  []string // ids of the root's element children, in order ("" for none)
		fail bool
	}{
		{src: `<div id="a"><p id="b">x</p><br><input id="c" value="a>b"><svg><path d="M0" /></svg><!-- <i> --></div>`, ids: []string{"b", "", "c", ""}},
		{src: `<div id='a' hidden data-x="1"><span id='s'></span></div>`, ids: []string{"s"}},
		{src: `  <div id="a"></div>  `, ids: []string{}},
		{src: `<div id="a"><p></div></p>`, fail: true},
		{src: `<div id="a"></div><div id="b"></div>`, fail: true},
		{src: `<div id="a" x=1></div>`, fail: true},
		{src: `<div id="a">`, fail: true},
		{src: `text`, fail: true},
		{src: `<div id="a"><!-- unterminated</div>`, fail: true},
	} {
		s := parseSpans([]byte(tc.src))
		if tc.fail {
			if s != nil {
				t.Errorf("%s: parsed, want a refusal", tc.src)
			}
			continue
		}
		if s == nil || string(s.id(s.root)) != "a" {
			t.Fatalf("%s: root %+v", tc.src, s)
		}
		var got []string
		for c := s.nodes[s.root].first; c >= 0; c = s.nodes[c].next {
			if !s.nodes[c].text {
				got = append(got, string(s.id(c)))
			}
		}
		if len(got) != len(tc.ids) {
			t.Fatalf("%s: children %q, want %q", tc.src, got, tc.ids)
		}
		for i := range got {
			if got[i] != tc.ids[i] {
				t.Errorf("%s: children %q, want %q", tc.src, got, tc.ids)
			}
		}
	}
}

// The hub's way: each render diffed against the last with its kept tree,
// the tree before that recycled. The patches are the same as a diff from
// scratch gives, render after render, whatever the trees' sizes.
func TestDiffWithRecycledTrees(t *testing.T) {
	renders := []string{
		`<div id="b"><i id="x">1</i><i id="y">2</i></div>`,
		`<div id="b"><i id="x">1</i><i id="y">3</i></div>`,
		`<div id="b"><i id="x">1</i><i id="y">3</i><i id="z">a longer row, <b>bold</b></i></div>`,
		`<div id="b"><i id="x">9</i><i id="y">3</i><i id="z">a longer row, <b>bold</b></i></div>`,
		`<div id="b"><i id="x">9</i></div>`,
		`<div id="b"><i id="x">9</i><i id="y">4</i></div>`,
	}
	var prev []byte
	var tree *Tree
	for i, r := range renders {
		cur := []byte(r)
		want, _ := Diff(prev, nil, cur)
		got, next := Diff(prev, tree, cur)
		tree = next
		if len(got) != len(want) {
			t.Fatalf("render %d: %q, want %q", i, got, want)
		}
		for j := range got {
			if string(got[j]) != string(want[j]) {
				t.Fatalf("render %d: %q, want %q", i, got, want)
			}
		}
		prev = cur
	}
}
