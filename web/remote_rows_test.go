package web

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/state"
)

// fakeRemote is another machine's rows as host.Remote: the ids "box/…",
// its cards, and what its machine replies to an answer.
type fakeRemote struct {
	rows   []state.Session
	cards  []host.Card
	answer func(host.AnswerRequest) (host.Card, error)
	steer  func(host.SteerRequest) error
}

func (fakeRemote) Attach(func()) {}
func (r fakeRemote) Compose(d state.Document, _ time.Time) state.Document {
	return state.Compose(d, r.rows, true)
}
func (fakeRemote) Owns(id string) bool { return strings.HasPrefix(id, "box/") }
func (r fakeRemote) Has(id string) bool {
	for _, s := range r.rows {
		if s.ID == id {
			return true
		}
	}
	return false
}
func (fakeRemote) Unknown() map[string]bool { return nil }
func (fakeRemote) Retire(...string) bool    { return false }
func (r fakeRemote) Cards() host.CardSet    { return host.CardSet{Cards: r.cards} }
func (r fakeRemote) Steer(_ context.Context, s host.SteerRequest) error {
	if r.steer == nil {
		return host.ErrMachineAway
	}
	return r.steer(s)
}
func (r fakeRemote) Answer(a host.AnswerRequest) (host.Card, error) {
	if r.answer == nil {
		return host.Card{}, host.ErrMachineAway
	}
	return r.answer(a)
}

// TestRemoteIDsThatNoMachineHas (issue 31, item 6): the history, the
// statusline and the ✕ take another machine's rows that exist, and refuse
// any other id in its namespace (404) — none reaches manual.json.
func TestRemoteIDsThatNoMachineHas(t *testing.T) {
	e := newEnv(t, envOpts{remote: fakeRemote{rows: []state.Session{{ID: "box/a", Status: state.StatusWorking}}}})
	for _, id := range []string{"box/nosuch", "box/a/sub", "box/"} {
		if status, _ := e.do(t, "GET", "/agents-notch/history?session="+url.QueryEscape(id), "", nil); status != 404 {
			t.Errorf("history of %q: %d, want 404", id, status)
		}
		if status, _ := e.do(t, "POST", "/agents-notch/statusline", `{"session":"`+id+`"}`, nil); status != 404 {
			t.Errorf("statusline of %q: %d, want 404", id, status)
		}
		if status, _ := e.do(t, "POST", "/agents-notch/finish", `{"sessionId":"`+id+`"}`, nil); status != 404 {
			t.Errorf("the ✕ of %q: %d, want 404", id, status)
		}
	}
	if _, err := os.Stat(e.manual); !os.IsNotExist(err) {
		t.Errorf("manual.json after ✕ of ids no machine has: %v", err)
	}
	if status, _ := e.do(t, "GET", "/agents-notch/history?session=box%2Fa", "", nil); status != 200 {
		t.Errorf("history of box/a: %d, want 200", status)
	}
	if status, _ := e.do(t, "POST", "/agents-notch/statusline", `{"session":"box/a"}`, nil); status != 200 {
		t.Errorf("statusline of box/a: %d, want 200", status)
	}
}

// fakeLink is a joined machine's word on its hub.
type fakeLink string

func (l fakeLink) HubLink() string { return string(l) }

// TestBoardSaysWhyNotOnTheHub (issue 31, item 5): a joined machine that
// is not connected to its hub says why on its own board.
func TestBoardSaysWhyNotOnTheHub(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.Link = fakeLink("not connected to the hub: revoked")
	if _, page := getPage(t, e, "/agents-notch/"); !strings.Contains(page, `role="status">not connected to the hub: revoked</p>`) {
		t.Error("the board does not say the machine is not connected to its hub: revoked")
	}
	e.hub.Link = fakeLink("")
	if _, page := getPage(t, e, "/agents-notch/"); strings.Contains(page, "hub-link") {
		t.Error("a connected machine's board says it is not")
	}
}

// TestOpenRefusesRemoteRows: the opener acts on this machine; a remote
// row's Open is refused with the reason, never forwarded.
func TestOpenRefusesRemoteRows(t *testing.T) {
	e := newEnv(t, envOpts{openURL: "http://127.0.0.1:9/open", remote: fakeRemote{rows: []state.Session{{ID: "box/a", Status: state.StatusWorking}}}})
	status, body := e.do(t, "POST", "/agents-notch/open", `{"sessionId":"box/a"}`, nil)
	if status != 409 || !strings.Contains(body["error"].(string)+"", "another machine") {
		t.Errorf("open of a remote row: %d %v; want 409 saying it runs on another machine", status, body)
	}
}

// TestApproveRemoteCard: a click on another machine's card goes to the
// remote (the machine that holds the hook), behind the same locks, and its
// outcome maps to the statuses of a local click; a machine that does not
// answer is 503 with its reason, never a success.
func TestApproveRemoteCard(t *testing.T) {
	var got []host.AnswerRequest
	reply := map[string]error{"n-ok": nil, "n-used": host.ErrAnswered, "n-bad": host.ErrNonce,
		"n-away": fmt.Errorf("%w: box is quiet", host.ErrMachineAway)}
	r := fakeRemote{
		rows:  []state.Session{{ID: "box/a", Status: state.StatusAttention}},
		cards: []host.Card{{Key: "box-k", Session: "box/a", Tool: "Bash", State: host.CardWaiting, Nonce: "n-ok"}},
		answer: func(a host.AnswerRequest) (host.Card, error) {
			got = append(got, a)
			if err := reply[a.Nonce]; err != nil {
				return host.Card{}, err
			}
			return host.Card{Session: a.Session, Outcome: host.OutcomeAllowed}, nil
		},
	}
	e := newEnv(t, envOpts{remote: r})
	if cs := e.board.Cards(); len(cs.Cards) != 1 || cs.Cards[0].Session != "box/a" {
		t.Fatalf("the hub's board does not draw the remote card: %+v", cs)
	}
	body := func(nonce string) string {
		return `{"sessionId":"box/a","call":"","nonce":"` + nonce + `","decision":"allow","message":""}`
	}
	for _, tc := range []struct {
		nonce string
		want  int
		says  string
	}{
		{"n-ok", 200, "allowed"},
		{"n-used", 409, "already answered"},
		{"n-bad", 403, "not known"},
		{"n-away", 503, "box is quiet"},
	} {
		status, m := e.do(t, "POST", "/agents-notch/approve", body(tc.nonce), nil)
		text := fmt.Sprint(m["outcome"], m["error"])
		if status != tc.want || !strings.Contains(text, tc.says) {
			t.Errorf("%s: %d %v; want %d saying %q", tc.nonce, status, m, tc.want, tc.says)
		}
	}
	if len(got) != 4 || got[0].Session != "box/a" || got[0].Decision != host.DecideAllow {
		t.Errorf("the remote got %+v", got)
	}
	// The locks come first: a cross-site POST never reaches the machine.
	n := len(got)
	if status, _ := e.do(t, "POST", "/agents-notch/approve", body("n-ok"), map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}); status != 403 {
		t.Errorf("a cross-site answer: %d, want 403", status)
	}
	if len(got) != n {
		t.Errorf("a refused POST reached the machine")
	}
}

// runningStore is a lasting history in a temp dir with its writer running
// until the test ends.
func runningStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), store.File), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { st.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; st.Close() })
	return st
}

// TestRemoteRowHistoryFromTheStore (issue 32): on a hub another machine's
// unfolded row shows that machine's events from the lasting history, fed
// from its own (host/mesh); a row whose events have not come yet says they
// are kept by its machine.
func TestRemoteRowHistoryFromTheStore(t *testing.T) {
	st := runningStore(t)
	ctx := context.Background()
	now := time.Now().UnixMilli()
	if err := st.Take(ctx, "box", []store.Item{
		{Seq: 1, Event: &store.Event{Event: state.Event{Type: state.TypeSessionOpened, Session: "a", Cwd: "/src/argon", At: now - 3000}}},
		{Seq: 2, Event: &store.Event{Event: state.Event{Type: state.TypeTurnStarted, Session: "a", At: now - 2000}}},
		{Seq: 3, Event: &store.Event{Event: state.Event{Type: state.TypeToolStarted, Session: "a", Tool: "<b>Bash</b>", At: now - 1000}}},
	}, 3); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOpts{store: st, remote: fakeRemote{rows: []state.Session{{ID: "box/a", Status: state.StatusWorking}, {ID: "box/b", Status: state.StatusWorking}}}})
	status, body := getPage(t, e, "/agents-notch/history?session=box%2Fa")
	if status != 200 || !strings.Contains(body, ">tool started<") || !strings.Contains(body, "&lt;b&gt;Bash&lt;/b&gt;") || !strings.Contains(body, "from the lasting history") {
		t.Errorf("box/a's history on the hub: %d\n%s", status, body)
	}
	if _, body := getPage(t, e, "/agents-notch/history?session=box%2Fb"); !strings.Contains(body, "kept by its own machine") {
		t.Errorf("box/b's history, none fed yet:\n%s", body)
	}
}
