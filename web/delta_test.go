package web

import (
	"bytes"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/templates"
)

// applyParts does what the browser does with a patch: each part replaces
// the element with its id.
func applyParts(t *testing.T, page []byte, parts [][]byte) []byte {
	t.Helper()
	for _, p := range parts {
		ps := parseSpans(p)
		if ps == nil || ps.id == "" {
			t.Fatalf("a part is not one element with an id: %.80s", p)
		}
		root := parseSpans(page)
		target := findSpan(root, ps.id)
		if target == nil {
			t.Fatalf("part #%s has no element to replace", ps.id)
		}
		page = append(append(append([]byte{}, page[:target.start]...), p...), page[target.end:]...)
	}
	return page
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

func TestDeltaPatchesTurnTheOldBoardIntoTheNew(t *testing.T) {
	tokens := int64(900000)
	tests := []struct {
		name     string
		events   []state.Event
		smallest bool // the patch must be smaller than the page
	}{
		{"a title changes", []state.Event{{Type: "session.titled", Session: "session-03", Title: "A new title"}}, true},
		{"a tool starts", []state.Event{{Type: "tool.started", Session: "session-04", Tool: "grep"}}, true},
		{"context grows past hotAt", []state.Event{{Type: "context.tokens", Session: "session-02", Tokens: &tokens}}, true},
		{"an approval is asked", []state.Event{{Type: "approval.requested", Session: "session-08", Tool: "rm", Reason: "deletes files"}}, false},
		{"a session opens", []state.Event{{Type: "session.opened", Session: "zz-new", Cwd: "/x/y"}}, false},
		{"a session finishes", []state.Event{{Type: "session.finished", Session: "session-05"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOpts{patch: "- id: agents-notch\n  config:\n    context: {budget: 1000000, hotAt: 0.5}\n"})
			fill(t, e, 12)
			now := time.Now()
			bv, _ := e.hub.Models(now)
			before, _ := renderHTML(templates.Board(bv))
			if _, err := e.board.Ingest(tt.events, now); err != nil {
				t.Fatal(err)
			}
			bv, _ = e.hub.Models(now)
			after, _ := renderHTML(templates.Board(bv))
			parts, _ := delta(before, nil, after)
			if parts == nil {
				if tt.smallest {
					t.Fatalf("no piecewise patch for a one-row change")
				}
				return // the whole board is sent: correct by construction
			}
			if got := applyParts(t, before, parts); !bytes.Equal(got, after) {
				t.Fatalf("patching did not give the new board:\n got %s\nwant %s", got, after)
			}
			if n := len(joinParts(parts)); tt.smallest && n >= len(after)/3 {
				t.Errorf("the patch is %d bytes for a %d-byte board", n, len(after))
			}
		})
	}
}

func TestDeltaRefusesWhatItCannotPatch(t *testing.T) {
	for _, tc := range []struct{ prev, cur string }{
		{`<div id="a"><p>x</p></div>`, `<div id="b"><p>x</p></div>`}, // the root's id changed
		{`<div id="a"><p>x</p></div>`, `<div id="a"><p>y</p></div>`}, // only the root has an id: whole
		{`<div id="a"><p id="p">x</p></div>`, `<div id="a"><p id="p">x</p><p>z</p></div>`},
		{`<div id="a">`, `<div id="a"></div>`}, // malformed
	} {
		parts, _ := delta([]byte(tc.prev), nil, []byte(tc.cur))
		if parts != nil {
			if got := applyParts(t, []byte(tc.prev), parts); string(got) != tc.cur {
				t.Errorf("delta(%s → %s) gave a wrong patch %q", tc.prev, tc.cur, parts)
			}
		}
	}
	// Unchanged siblings stay out of the patch.
	prev := `<div id="b"><div id="r1">one</div><div id="r2">two</div><div id="r3">three, a longer row</div></div>`
	cur := `<div id="b"><div id="r1">one</div><div id="r2">TWO</div><div id="r3">three, a longer row</div></div>`
	parts, _ := delta([]byte(prev), nil, []byte(cur))
	if len(parts) != 1 || string(parts[0]) != `<div id="r2">TWO</div>` {
		t.Errorf("delta = %q, want just r2", parts)
	}
}

func FuzzDelta(f *testing.F) {
	// Seeds: an id'd row list where one row changes, a void element, a
	// text-only change, and broken markup.
	f.Add(`<div id="b"><i id="x">1</i><i id="y">2</i></div>`, `<div id="b"><i id="x">1</i><i id="y">3</i></div>`)
	f.Add(`<div id="b"><input id="i" value="1"><p id="p">a</p></div>`, `<div id="b"><input id="i" value="2"><p id="p">a</p></div>`)
	f.Add(`<div id="b">text</div>`, `<div id="b">other</div>`)
	f.Add(`<div id="b"><p>`, `</div>`)
	f.Fuzz(func(t *testing.T, prev, cur string) {
		parts, _ := delta([]byte(prev), nil, []byte(cur))
		if parts == nil {
			return
		}
		if got := applyParts(t, []byte(prev), parts); string(got) != cur {
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
		if s == nil || s.id != "a" {
			t.Fatalf("%s: root %+v", tc.src, s)
		}
		var got []string
		for _, c := range s.children {
			if !c.text {
				got = append(got, c.id)
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
