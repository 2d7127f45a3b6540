//go:build notch_hub

package mesh

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/templates"
)

// headingRE reads an open board's group headings: the worst status and
// the name.
var headingRE = regexp.MustCompile(`<h2 class="group-head" id="[^"]*" data-status="([^"]*)">.*?<span class="group-name"[^>]*>([^<]*)</span>`)

// headings renders the hub's composed board and lists its group headings
// in order, "name: worst".
func headings(t *testing.T, r *remote, own []state.Session) []string {
	t.Helper()
	d := r.Compose(state.Document{Schema: 4, Settings: settings.Defaults, Sessions: own}, time.Now())
	var b bytes.Buffer
	if err := templates.Board(templates.BoardView{Doc: d, UnknownRows: r.Unknown()}).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range headingRE.FindAllStringSubmatch(b.String(), -1) {
		out = append(out, m[2]+": "+m[1])
	}
	return out
}

// TestBoardGroupsByMachine: with rows of several machines on the hub's
// board, the open board groups them by machine, then project — a heading
// per machine · project, this machine's first, then the others by name,
// each machine's groups together, each headed by its worst status; a quiet
// machine's are headed "unknown", never by a last state that is not current.
// With one machine's rows the headings are the projects, as on a board of
// its own.
func TestBoardGroupsByMachine(t *testing.T) {
	own := []state.Session{
		{ID: "h1", Project: "api", Status: state.StatusWorking, Title: "a"},
		{ID: "h2", Project: "web", Status: state.StatusDone, Title: "b"},
		{ID: "h3", Project: "api", Status: state.StatusError, Title: "c"},
	}
	r := newRemote("hub")
	if got, want := strings.Join(headings(t, r, own), "; "), "api: error; web: done"; got != want {
		t.Errorf("one machine: headings %q, want %q (the board of a machine alone)", got, want)
	}

	r.setBoard("beta", mustEncode(t, state.Document{Schema: 4, Sessions: []state.Session{
		{ID: "b1", Project: "infra", Status: state.StatusWorking, Title: "d"},
		{ID: "b2", Project: "infra", Status: state.StatusAttention, Title: "e"},
		{ID: "b3", Project: "api", Status: state.StatusDone, Title: "f"},
	}}), true)
	r.setBoard("alpha", mustEncode(t, state.Document{Schema: 4, Sessions: []state.Session{
		{ID: "a1", Project: "webshop", Status: state.StatusWorking, Title: "g"},
		{ID: "a2", Project: "", Status: state.StatusDone, Title: "h"},
	}}), true)
	want := []string{
		"hub · api: error", "hub · web: done",
		"alpha · webshop: working", "alpha: done",
		"beta · infra: attention", "beta · api: done",
	}
	if got := headings(t, r, own); strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("several machines: headings\n got %q\nwant %q", got, want)
	}

	r.setPresence("alpha", false, time.Now())
	want[2], want[3] = "alpha (unknown) · webshop: unknown", "alpha (unknown): unknown"
	if got := headings(t, r, own); strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("a quiet machine: headings\n got %q\nwant %q", got, want)
	}
}
