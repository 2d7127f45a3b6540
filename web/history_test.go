package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/store"
	goldenfile "github.com/notch-web/notch-web/internal/golden"
	"github.com/notch-web/notch-web/internal/sse"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fakeHistory is a store the History page's tests fill by hand: it
// answers every query with what it holds and records the queries.
type fakeHistory struct {
	mu       sync.Mutex
	sessions []store.Session
	turns    map[string][]store.Turn
	answers  map[string][]store.Answer
	spans    []store.Span
	bars     []store.DayBar
	byAgent  []store.AgentDay
	headline store.Headline
	problem  string
	err      error
	queries  []store.Query
	days     []time.Time
	wake     chan struct{}
}

func (f *fakeHistory) Sessions(_ context.Context, q store.Query) ([]store.Session, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	return f.sessions, len(f.sessions), f.err
}
func (f *fakeHistory) Details(_ context.Context, sessions []store.Session) ([][]store.Turn, [][]store.Answer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	turns, answers := make([][]store.Turn, len(sessions)), make([][]store.Answer, len(sessions))
	for i, r := range sessions {
		turns[i], answers[i] = f.turns[r.Machine+"/"+r.ID], f.answers[r.Machine+"/"+r.ID]
	}
	return turns, answers, nil
}
func (f *fakeHistory) Day(_ context.Context, day time.Time) ([]store.Span, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.days = append(f.days, day)
	return f.spans, nil
}
func (f *fakeHistory) Days(_ context.Context, last time.Time, n int) ([]store.DayBar, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bars, nil
}
func (f *fakeHistory) AgentDays(_ context.Context, last time.Time, n int) ([]store.AgentDay, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.byAgent, nil
}
func (f *fakeHistory) Headline(_ context.Context, day time.Time) (store.Headline, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.headline, nil
}
func (f *fakeHistory) Facets(context.Context) (projects, machines, agents []string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	seen := map[string]bool{}
	for _, s := range f.sessions {
		for _, p := range [][2]string{{"p", s.Project}, {"m", s.Machine}, {"a", s.Agent}} {
			if seen[p[0]+p[1]] {
				continue
			}
			seen[p[0]+p[1]] = true
			switch p[0] {
			case "p":
				projects = append(projects, p[1])
			case "m":
				machines = append(machines, p[1])
			case "a":
				agents = append(agents, p[1])
			}
		}
	}
	return projects, machines, agents, nil
}
func (f *fakeHistory) Problem() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.problem
}
func (f *fakeHistory) Changes() (<-chan struct{}, func()) { return f.wake, func() {} }

// changed wakes the page's streams, as the store does after a write batch.
func (f *fakeHistory) changed() { f.wake <- struct{}{} }

// hday is the day of the handler tests' history, 3 Dec 2026 (UTC: the
// test server's zone).
var hday = time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)

func hat(h, m int) int64 {
	return hday.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute).UnixMilli()
}

// newFakeHistory is two sessions, one with a turn and an answer, a day of
// bands, three days of bars and the headline.
func newFakeHistory() *fakeHistory {
	cost := 0.5
	codexTokens := int64(48200)
	return &fakeHistory{
		sessions: []store.Session{
			{Machine: store.Local, ID: "s-2", Agent: "claude-code", Project: "notch", Title: "Write <the> page", StartedMs: hat(10, 0), Turns: 1, WorkingMs: 1800000, WaitingMs: 120000, CostUSD: &cost},
			{Machine: "studio", ID: "s-1", Agent: "codex", Project: "uploads", Title: "Fix uploads", StartedMs: hat(8, 0), EndedMs: hat(9, 0), Outcome: "done"},
		},
		turns: map[string][]store.Turn{
			store.Local + "/s-2": {{Seq: 1, StartedMs: hat(10, 0), EndedMs: hat(10, 30), Outcome: "done", Tools: map[string]int{"Bash": 3}, Errors: 1, ContextTokens: 51000, CostUSD: &cost}},
		},
		answers: map[string][]store.Answer{
			store.Local + "/s-2": {{Session: "s-2", Call: "c1", Tool: "Bash", AskedMs: hat(10, 5), AnsweredMs: hat(10, 7), By: "board", Device: "phone", Outcome: "allowed once"}},
		},
		spans: []store.Span{
			{Machine: "studio", Session: "s-1", Title: "Fix uploads", Status: "working", FromMs: hat(8, 0), ToMs: hat(9, 0)},
			{Machine: store.Local, Session: "s-2", Title: "Write <the> page", Status: "attention", FromMs: hat(10, 5), ToMs: hat(10, 7)},
		},
		bars: []store.DayBar{
			{Day: hday.AddDate(0, 0, -2)},
			{Day: hday.AddDate(0, 0, -1), Sessions: 3, Turns: 9, WorkingMs: 3600000, WaitingMs: 600000, Tokens: 300000},
			{Day: hday, Sessions: 2, Turns: 1, WorkingMs: 5400000, WaitingMs: 120000, Tokens: 51000, CostUSD: &cost},
		},
		// Codex told tokens, no cost; Claude Code its cost alone.
		byAgent: []store.AgentDay{
			{Day: hday.AddDate(0, 0, -2)},
			{Day: hday.AddDate(0, 0, -1), Agents: []store.AgentUse{{Agent: "codex", Tokens: &codexTokens}}},
			{Day: hday, Agents: []store.AgentUse{{Agent: "claude-code", CostUSD: &cost}, {Agent: "codex", Tokens: &codexTokens}}},
		},
		headline: store.Headline{WaitingMs: 120000, Waits: 1, MedianWaitMs: 120000, LongestWaitMs: 120000, LongestMachine: store.Local, LongestSession: "s-2", LongestTitle: "Write <the> page"},
		wake:     make(chan struct{}, 1),
	}
}

func histNow() time.Time { return time.UnixMilli(hat(14, 0)) }

func getWith(t *testing.T, e *testEnv, path string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.base+path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// The History page: server-rendered, behind the pages' headers, the
// query's filters in the store's query and the day drawn today's; the
// board and the pane link to it.
func TestHistoryPage(t *testing.T) {
	f := newFakeHistory()
	e := newEnv(t, envOpts{history: f, now: histNow})
	res, body := getWith(t, e, "/agents-notch/history?q=uploads+fix&project=uploads&machine=-&outcome=done", nil)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if res.Header.Get("Content-Security-Policy") == "" || res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("the page lacks its headers: %v", res.Header)
	}
	for _, want := range []string{`data-page="history"`, `id="hist-live"`, `Write &lt;the&gt; page`, `value="uploads fix"`,
		`history/stream?machine=-&amp;outcome=done&amp;project=uploads&amp;q=uploads+fix`, `Today, waiting on you`, `2 min`, `Bash ×3`, `allowed once`, `<td>board · phone</td>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	q := f.queries[len(f.queries)-1]
	if strings.Join(q.Words, ",") != "uploads,fix" || q.Project != "uploads" || q.Machine != store.Local || q.Outcome != "done" || q.Limit != store.DefaultLimit {
		t.Errorf("the store was asked %+v", q)
	}
	if d := f.days[len(f.days)-1]; !d.Equal(hday) {
		t.Errorf("the day drawn is %v, want today %v", d, hday)
	}
	// A day in the query is the day drawn.
	getWith(t, e, "/agents-notch/history?day=2026-11-30", nil)
	if d := f.days[len(f.days)-1]; !d.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("day=2026-11-30 drew %v", d)
	}
	for _, p := range []string{"/agents-notch/", "/agents-notch/pane"} {
		if _, page := getPage(t, e, p); !strings.Contains(page, `href="/agents-notch/history"`) {
			t.Errorf("%s does not link the History page", p)
		}
	}
}

// Accept: application/json gets the same data as the page, golden.
func TestHistoryJSON(t *testing.T) {
	e := newEnv(t, envOpts{history: newFakeHistory(), now: histNow})
	res, body := getWith(t, e, "/agents-notch/history", map[string]string{"Accept": "application/json"})
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("json: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(body), "", "  "); err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, filepath.Join("testdata", "history.json"), filepath.Join("testdata", "history.actual.json"), pretty.Bytes(), *update)
	// A browser's Accept (and Datastar's) is the page.
	for _, accept := range []string{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/event-stream, text/html, application/json", ""} {
		if res, _ := getWith(t, e, "/agents-notch/history", map[string]string{"Accept": accept}); !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Errorf("Accept %q got %s", accept, res.Header.Get("Content-Type"))
		}
	}
}

// A query that does not parse is 400 with its reason, on the page and
// on its stream; the store is not asked.
func TestHistoryBadQuery(t *testing.T) {
	f := newFakeHistory()
	e := newEnv(t, envOpts{history: f, now: histNow})
	for _, tc := range []struct{ q, reason string }{
		{"day=yesterday", "day must be YYYY-MM-DD"},
		{"outcome=lost", "outcome must be one of done, error, ended, open"},
		{"q=a&q=b", "q is given 2 times"},
		{"offset=-1", "offset must be a number"},
		{"project=" + strings.Repeat("x", 201), "project must be at most 200 bytes"},
		{"q=%00", "q must be at most 200 bytes of text"},
	} {
		for _, route := range []string{"/agents-notch/history?", "/agents-notch/history/stream?"} {
			code, got := e.do(t, http.MethodGet, route+tc.q, "", nil)
			if code != http.StatusBadRequest || !strings.Contains(got["error"].(string), tc.reason) {
				t.Errorf("%s%.30s: %d %v, want 400 with %q", route, tc.q, code, got, tc.reason)
			}
		}
	}
	if len(f.queries) != 0 {
		t.Errorf("the store was asked %d queries for bad ones", len(f.queries))
	}
}

// Unavailable (store.Problem, or a read that fails) is the page's own
// state, 503, with the store's reason and never a failure's text; with no
// store at all the page says there is no history, and it has no stream.
func TestHistoryStates(t *testing.T) {
	f := newFakeHistory()
	f.problem = "the history's file is full"
	e := newEnv(t, envOpts{history: f, now: histNow})
	code, body := getPage(t, e, "/agents-notch/history")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "History unavailable") || !strings.Contains(body, "the history&#39;s file is full") {
		t.Errorf("problem: %d %s", code, body)
	}
	res, js := getWith(t, e, "/agents-notch/history", map[string]string{"Accept": "application/json"})
	if res.StatusCode != http.StatusServiceUnavailable || js != `{"ok":false,"problem":"the history's file is full","timeline":[],"days":[],"total":0,"sessions":[]}`+"\n" {
		t.Errorf("problem json: %d %s", res.StatusCode, js)
	}

	f.problem, f.err = "", errors.New("sqlite: disk I/O error at /secret/path")
	code, body = getPage(t, e, "/agents-notch/history")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "the history could not be read just now") || strings.Contains(body, "secret") {
		t.Errorf("read error: %d %s", code, body)
	}

	off := newEnv(t, envOpts{now: histNow})
	code, body = getPage(t, off, "/agents-notch/history")
	if code != http.StatusOK || !strings.Contains(body, "No history here") || strings.Contains(body, "data-init") {
		t.Errorf("off: %d %s", code, body)
	}
	if code, _ := getPage(t, off, "/agents-notch/history/stream"); code != http.StatusNotFound {
		t.Errorf("off stream: %d, want 404", code)
	}
	if _, js := getWith(t, off, "/agents-notch/history", map[string]string{"Accept": "application/json"}); !strings.Contains(js, `"off":true`) {
		t.Errorf("off json: %s", js)
	}
}

// The stream: the live part at once, a patch when the store changes what
// it draws, nothing for a change that draws nothing new, and its end when
// the hub closes (shutdown).
func TestHistoryStream(t *testing.T) {
	f := newFakeHistory()
	e := newEnv(t, envOpts{history: f, now: histNow})
	res, err := http.Get(e.base + "/agents-notch/history/stream?q=page")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	events := make(chan string, 8)
	go func() {
		defer close(events)
		r := bufio.NewReader(res.Body)
		var ev strings.Builder
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if line == "\n" {
				if ev.Len() == 0 {
					continue // datastar-go ends a frame with a blank line more
				}
				events <- ev.String()
				ev.Reset()
				continue
			}
			ev.WriteString(line)
		}
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("%s: the stream ended", what)
			}
			return ev
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no event", what)
		}
		return ""
	}
	first := next("the first patch")
	if !strings.Contains(first, "event: datastar-patch-elements") || !strings.Contains(first, `id="hist-live"`) || !strings.Contains(first, "Write &lt;the&gt; page") {
		t.Fatalf("first: %s", first)
	}
	if err := sse.Check([]byte(first + "\n")); err != nil {
		t.Errorf("the frame is not one event: %v", err)
	}
	// A change that draws nothing new sends nothing (the stream reads the
	// store again and keeps quiet); the next that does is the next event.
	asked := func() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.queries) }
	n := asked()
	f.changed()
	for deadline := time.Now().Add(10 * time.Second); asked() == n; {
		if time.Now().After(deadline) {
			t.Fatal("the stream did not read the store again after a change")
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.mu.Lock()
	f.sessions[0].Title = "Write the page, live"
	f.mu.Unlock()
	f.changed()
	if ev := next("the patch after a change"); !strings.Contains(ev, "Write the page, live") {
		t.Errorf("after a change: %s", ev)
	}
	f.mu.Lock()
	q := f.queries[len(f.queries)-1]
	f.mu.Unlock()
	if len(q.Words) != 1 || q.Words[0] != "page" {
		t.Errorf("the stream asked %+v, not the page's query", q)
	}
	e.hub.Close()
	select {
	case _, ok := <-events:
		if ok {
			t.Error("an event after the hub closed")
		}
	case <-time.After(10 * time.Second):
		t.Error("the stream outlived the hub")
	}
}

// wantsJSON: JSON only when the Accept header names it before HTML.
func TestWantsJSON(t *testing.T) {
	for _, tc := range []struct {
		accept string
		want   bool
	}{
		{"application/json", true},
		{"application/json; charset=utf-8", true},
		{"application/json, text/html", true},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false}, // a browser
		{"text/event-stream, text/html, application/json", false},                  // Datastar's
		{"*/*", false}, // curl
		{"", false},
		{"garbage;;, application/json", true},
		{"application/JSON", true},
	} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Accept", tc.accept)
		if got := wantsJSON(r); got != tc.want {
			t.Errorf("wantsJSON(%q) = %v, want %v", tc.accept, got, tc.want)
		}
	}
}

// FuzzWantsJSON: any Accept header is read without a panic, and the same
// way twice.
func FuzzWantsJSON(f *testing.F) {
	f.Add("application/json")                                // a script
	f.Add("text/html,application/xhtml+xml;q=0.9,*/*;q=0.8") // a browser
	f.Add(`application/json; q="0.5`)                        // an unterminated quote
	f.Add(",,;,=")                                           // nothing but separators
	f.Fuzz(func(t *testing.T, accept string) {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header["Accept"] = []string{accept}
		first := wantsJSON(r)
		if again := wantsJSON(r); again != first {
			t.Fatal("two answers")
		}
	})
}
