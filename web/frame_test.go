package web

import (
	"strings"
	"testing"

	"github.com/notch-web/notch-web/internal/htmldiff"
	"github.com/notch-web/notch-web/internal/sse"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/templates"
)

// hostile are strings that once could, or might, end a line or an event of
// the stream, or change the shape of the HTML around them.
var hostile = []string{
	"\r",
	"\r\n",
	"\n",
	"\r\r",
	"\n\n",
	"a\rb\r\rc",
	"x\revent: datastar-patch-signals\rdata: signals {_x: (window.__pwned = 1)}\r\r",
	"x\r\nevent: datastar-patch-signals\r\ndata: signals {}\r\n\r\n",
	"</span></li><script>window.__pwned=1</script>",
	`" data-on:click="@post('/agents-notch/settings', {payload: {reset: true}})`,
	"data: elements <div id=\"board\"></div>",
	"\x00\x01\x0b\x0c\x1b[31m\x7f\u0085\u2028\u2029",
	"\xff\xfe not UTF-8",
	"\uFEFF",
	":",
	strings.Repeat("\r", 64),
}

// hostileBoard puts s in every field the board draws.
func hostileBoard(s string) templates.BoardView {
	budget := int64(1000)
	approved := int64(1_790_000_000_500)
	base := state.Session{
		Title: "t" + s, Project: "p" + s, Cwd: "/c/" + s, Since: 1_790_000_000_000,
		Steps: 3, Identity: "teal" + s, ContextTokens: 600,
	}
	working := base
	working.ID, working.Status = "w"+s, state.StatusWorking
	working.Activity = &state.Activity{Kind: state.ActivityTool, Label: "tool" + s}
	thinking := base
	thinking.ID, thinking.Status = "th"+s, state.StatusWorking
	thinking.Activity = &state.Activity{Kind: state.ActivityThinking, Label: "after" + s}
	thinking.ApprovedAt = &approved
	asking := base
	asking.ID, asking.Status = "a"+s, state.StatusAttention
	asking.Approval = &state.Approval{ToolName: "pwsh" + s, Reason: "reason" + s}
	done := base
	done.ID, done.Status = "d"+s, state.StatusDone
	done.Activity = &state.Activity{Kind: state.ActivityThinking, Label: "last" + s}
	sub := base
	sub.ID, sub.Status, sub.Origin, sub.ParentSession = "s"+s, state.StatusError, state.OriginSubagent, "w"+s
	open := "http://127.0.0.1:1/open"
	doc := state.Document{
		Schema: state.Schema, Plugin: state.Plugin, WallMs: 1_790_000_001_000, Retire: state.RetireRoute,
		OpenURL:  &open,
		Context:  state.Context{Budget: &budget, HotAt: 0.5},
		Settings: settings.Defaults,
		Summary:  state.Summary{Status: state.StatusAttention, Working: 2, Attention: 1, Done: 1, Error: 1, Total: 5},
		Sessions: []state.Session{working, sub, thinking, asking, done},
	}
	return templates.BoardView{Doc: doc, NowMs: doc.WallMs}
}

// hostilePane puts s in every field the pane draws from outside.
func hostilePane(s string) templates.PaneView {
	st := settings.Defaults
	st.Screen = "screen" + s
	return templates.PaneView{
		View: settings.View{
			Settings: st,
			Row:      settings.Partial{"screen": "row" + s, "anchor": "top-left" + s},
			Stored:   settings.Partial{"screen": "pane" + s},
			Defaults: settings.Defaults,
			Source:   map[string]string{"screen": settings.SourcePane + s},
			Warnings: []settings.Warning{
				{File: "/dsh/cordis.patch.yml" + s, Key: "scale", Message: "want a number, got " + s},
				{File: "/dsh/settings.json", Key: "screen" + s, Message: s},
				{File: s, Message: "file" + s},
			},
			Context: settings.RowContext{HotAt: 0.5},
			Retire:  "route" + s,
		},
		Summary: state.Summary{Status: state.StatusWorking, Working: 1, Total: 1},
	}
}

// checkFrame asserts that a frame is exactly one datastar-patch-elements
// event to a spec-conforming parser, carrying html (line ends normalised).
func checkFrame(t *testing.T, frame []byte, html string) {
	t.Helper()
	evs := sse.Parse(frame)
	if len(evs) != 1 {
		t.Fatalf("one change became %d events: %#v", len(evs), evs)
	}
	if evs[0].Type != "datastar-patch-elements" {
		t.Fatalf("event type %q, want datastar-patch-elements", evs[0].Type)
	}
	var got []string
	for _, l := range strings.Split(evs[0].Data, "\n") {
		el, ok := strings.CutPrefix(l, "elements ")
		if !ok {
			t.Fatalf("data line %q is not an elements line", l)
		}
		got = append(got, el)
	}
	want := strings.ToValidUTF8(strings.Join(sse.Lines(html), "\n"), "\uFFFD")
	if strings.Join(got, "\n") != want {
		t.Fatalf("the patch's elements differ from the render")
	}
}

// renderBoth renders the board and the pane for one hostile string, the way
// the hub does.
func renderBoth(t testing.TB, s string) (board, pane []byte) {
	t.Helper()
	board, err := renderHTML(templates.Board(hostileBoard(s)))
	if err != nil {
		t.Fatal(err)
	}
	pane, err = renderHTML(templates.Pane(hostilePane(s)))
	if err != nil {
		t.Fatal(err)
	}
	return board, pane
}

// Every rendered field carrying a hostile string goes render → frame →
// parser as exactly the one event meant, whole pages and the hub's deltas
// alike.
func TestHostileStringsNeverChangeTheFrames(t *testing.T) {
	prevBoard, prevPane := renderBoth(t, "calm")
	for _, s := range hostile {
		board, pane := renderBoth(t, s)
		for _, html := range [][]byte{board, pane} {
			checkFrame(t, sse.Elements(html), string(html))
		}
		for _, p := range []struct{ prev, cur []byte }{{prevBoard, board}, {prevPane, pane}} {
			parts, _ := htmldiff.Diff(p.prev, nil, p.cur)
			if parts == nil {
				continue // a whole-page patch, checked above
			}
			joined := htmldiff.Join(parts)
			checkFrame(t, sse.Elements(joined), string(joined))
		}
	}
	evs := sse.Parse(sse.Heartbeat)
	if len(evs) != 1 || evs[0].Type != "datastar-patch-signals" || evs[0].Data != `signals {"_hb":true}` {
		t.Fatalf("heartbeat parsed as %#v", evs)
	}
}

// FuzzFrames: any string in every rendered field still frames as exactly
// the events meant.
func FuzzFrames(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	prevBoard, prevPane := renderBoth(f, "calm")
	f.Fuzz(func(t *testing.T, s string) {
		board, pane := renderBoth(t, s)
		checkFrame(t, sse.Elements(board), string(board))
		checkFrame(t, sse.Elements(pane), string(pane))
		for _, p := range []struct{ prev, cur []byte }{{prevBoard, board}, {prevPane, pane}} {
			if parts, _ := htmldiff.Diff(p.prev, nil, p.cur); parts != nil {
				joined := htmldiff.Join(parts)
				checkFrame(t, sse.Elements(joined), string(joined))
			}
		}
	})
}
