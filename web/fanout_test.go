package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/htmldiff"
	"github.com/notch-web/notch-web/internal/sse"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/templates"
)

// rawStream is a stream read over a plain TCP connection, as the browser's
// fetch reads it: the response head, then the body until the connection
// closes.
type rawStream struct {
	conn   net.Conn
	head   *http.Response
	events chan sse.Event
}

func openRaw(t testing.TB, base, page string) *rawStream {
	t.Helper()
	return openRawPaused(t, base, page, nil)
}

// openRawPaused opens a stream that reads nothing past its head, with a
// small receive buffer, until paused is closed (nil: never paused).
func openRawPaused(t testing.TB, base, page string, paused <-chan struct{}) *rawStream {
	t.Helper()
	host := strings.TrimPrefix(base, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	if paused != nil {
		conn.(*net.TCPConn).SetReadBuffer(4096)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "GET /agents-notch/stream?page=%s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", page, host)
	br := bufio.NewReaderSize(conn, 64<<10)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := &rawStream{conn: conn, head: res, events: make(chan sse.Event, 4096)}
	go func() {
		defer close(rs.events)
		if paused != nil {
			<-paused
		}
		var pending []byte
		buf := make([]byte, 32<<10)
		for {
			n, err := res.Body.Read(buf)
			pending = append(pending, buf[:n]...)
			// Whole events only: each ends with a blank line.
			if k := bytes.LastIndex(pending, []byte("\n\n")); k >= 0 {
				for _, ev := range sse.Parse(pending[:k+2]) {
					rs.events <- ev
				}
				pending = append(pending[:0], pending[k+2:]...)
			}
			if err != nil {
				return
			}
		}
	}()
	return rs
}

// patch returns the payload of the next patch-elements event, skipping
// heartbeats, or fails after timeout.
func (rs *rawStream) patch(t testing.TB, timeout time.Duration) string {
	t.Helper()
	p, err := rs.nextPatch(timeout)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// nextPatch is patch for another goroutine than the test's.
func (rs *rawStream) nextPatch(timeout time.Duration) (string, error) {
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-rs.events:
			if !ok {
				return "", errors.New("the stream ended")
			}
			if ev.Type == "datastar-patch-elements" {
				return elementsPayload(ev.Data), nil
			}
		case <-deadline:
			return "", fmt.Errorf("no patch within %v", timeout)
		}
	}
}

// elementsPayload is the markup of a patch-elements event's data.
func elementsPayload(data string) string {
	lines := strings.Split(data, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "elements ")
	}
	return strings.Join(lines, "\n")
}

// splitElements splits a patch payload into its top-level elements.
func splitElements(payload []byte) ([][]byte, error) {
	if htmldiff.Parse(payload) != nil {
		return [][]byte{payload}, nil
	}
	var parts [][]byte
	for start := 0; start < len(payload); {
		end := start
		for {
			k := bytes.IndexByte(payload[end:], '>')
			if k < 0 {
				return nil, fmt.Errorf("payload does not split into elements: %.80q", payload)
			}
			end += k + 1
			if htmldiff.Parse(payload[start:end]) != nil {
				break
			}
		}
		parts = append(parts, payload[start:end])
		start = end
	}
	return parts, nil
}

// applyPatch applies a patch payload to what a tab shows, as Datastar
// does: the whole board replaces it, parts replace their elements by id.
func applyPatch(page []byte, payload string) ([]byte, error) {
	p := []byte(payload)
	if tree := htmldiff.Parse(p); tree != nil && bytes.HasPrefix(p, []byte(`<div id="board"`)) {
		return p, nil
	}
	if page == nil {
		return nil, fmt.Errorf("a partial patch before the whole board: %.80q", payload)
	}
	parts, err := splitElements(p)
	if err != nil {
		return nil, err
	}
	out, err := htmldiff.Apply(page, parts)
	if err != nil {
		return nil, fmt.Errorf("patch does not apply: %w", err)
	}
	return out, nil
}

// untilDeadline is how long the test binary lets t run on (its -timeout),
// a minute short so a failure is reported, not a panic; ten minutes
// without one.
func untilDeadline(t *testing.T) time.Duration {
	if d, ok := t.Deadline(); ok {
		return max(time.Until(d)-time.Minute, time.Second)
	}
	return 10 * time.Minute
}

// The writers lose and reorder nothing: with changes fired faster than
// the tabs read them, and half the tabs not reading at all for a while (so
// their patches are replaced by whole boards on the way), every tab's
// board, rebuilt from what it read, ends as the hub's last render.
func TestFanoutEveryTabEndsOnTheLastBoard(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.Writers = 2
	// The paused tabs are behind, not stalled: no write to them may time
	// out however slowly a loaded machine runs the test (20 s did, under
	// -race at a load of 30: the stream ended); the binary's -timeout
	// bounds it.
	e.hub.WriteTimeout = untilDeadline(t)
	fill(t, e, 12)
	e.hub.Refresh(time.Now())
	const tabs = 40
	paused := make(chan struct{})
	streams := make([]*rawStream, tabs)
	for i := range streams {
		if i%2 == 0 {
			streams[i] = openRaw(t, e.base, templates.PageBoard)
		} else {
			streams[i] = openRawPaused(t, e.base, templates.PageBoard, paused)
		}
	}
	waitUntil(t, func() bool { return e.hub.Clients() == tabs })
	long := strings.Repeat("a title to fill a paused tab's buffers ", 3)
	for i := 0; i < 60; i++ {
		evs := []state.Event{{Type: "session.titled", Session: fmt.Sprintf("session-%02d", i%6), Title: fmt.Sprintf("%s %d", long, i)}}
		if i == 20 || i == 40 { // a new row: the whole board goes out
			evs = append(evs, state.Event{Type: "session.opened", Session: fmt.Sprintf("new-%d", i)})
		}
		if _, err := e.board.Ingest(evs, time.Now()); err != nil {
			t.Fatal(err)
		}
		e.hub.Refresh(time.Now())
	}
	if e.hub.SlowLanes() == 0 {
		t.Error("no paused tab fell behind: the test does not test newest-wins")
	}
	close(paused)
	want := e.hub.Last(templates.PageBoard)
	var wg sync.WaitGroup
	for _, rs := range streams {
		wg.Go(func() {
			var page []byte
			for !bytes.Equal(page, want) {
				p, err := rs.nextPatch(untilDeadline(t))
				if err == nil {
					page, err = applyPatch(page, p)
				}
				if err != nil {
					t.Errorf("a tab never reached the last board: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// A tab whose reader stops holds up no writer: while its stream waits in
// its slow lane for WriteTimeout, a healthy tab gets every change, even
// with a single writer; then the stalled stream is dropped. "At once" is
// told by order, not by a clock: each change reaches the healthy tab while
// the stalled stream is still held (not yet dropped), which a writer
// queued behind the stalled write could not do before WriteTimeout. The
// time each took is logged.
func TestFanoutStalledTabDelaysNoOne(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.Writers = 1
	e.hub.WriteTimeout = 10 * time.Second // generous: only the drop at the end waits it out
	e.hub.Refresh(time.Now())

	stalled, err := net.Dial("tcp", strings.TrimPrefix(e.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	stalled.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(stalled, "GET /agents-notch/stream?page=board HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(e.base, "http://"))
	healthy := openRaw(t, e.base, templates.PageBoard)
	waitUntil(t, func() bool { return e.hub.Clients() == 2 })

	title := strings.Repeat("a long title that fills the socket buffers ", 20)
	change := func(i int) time.Time {
		if _, err := e.board.Ingest([]state.Event{{Type: "session.opened", Session: fmt.Sprintf("s%d", i%30)},
			{Type: "session.titled", Session: fmt.Sprintf("s%d", i%30), Title: fmt.Sprintf("%s %d", title, i)}}, time.Now()); err != nil {
			t.Fatal(err)
		}
		at := time.Now()
		e.hub.Refresh(at)
		return at
	}
	seen := func(i int) {
		t.Helper()
		for !strings.Contains(healthy.patch(t, waitfor.Patience), fmt.Sprintf("%s %d", title, i)) {
		}
	}
	i := 0
	for ; e.hub.SlowLanes() == 0; i++ {
		if i > 5000 {
			t.Fatal("the stalled tab's socket never filled")
		}
		change(i)
		seen(i)
	}
	// The stalled stream's write is blocked now; the healthy tab's
	// changes still go out at once.
	var worst time.Duration
	for range 20 {
		i++
		at := change(i)
		seen(i)
		worst = max(worst, time.Since(at))
		if e.hub.Drops() != 0 || e.hub.SlowLanes() == 0 {
			t.Fatalf("change %d reached the healthy tab only once the stalled one was dropped (drops %d, slow lanes %d, %v after the change)",
				i, e.hub.Drops(), e.hub.SlowLanes(), time.Since(at))
		}
	}
	t.Logf("with a stalled tab in its slow lane, the slowest of 20 changes reached a healthy tab in %v", worst)
	waitUntil(t, func() bool { return e.hub.Drops() == 1 && e.hub.Clients() == 1 })
}

// A heartbeat only fills silence: a stream that carries changes gets none,
// an idle one gets one. On the owner's clock, as the host runs it (Clock:
// the fan-out keeps no timer; state.json's beat calls Beat), so what is
// beaten is what Beat finds silent at the time it is given, never what a
// busy machine's timer happened to reach in a window.
func TestFanoutHeartbeatFillsSilenceOnly(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.Clock, e.hub.HeartbeatEvery = 100*time.Millisecond, time.Hour
	fill(t, e, 2)
	// One time for every change and render: the pages' ages stay as they
	// are, so the pane has nothing to carry (a second passing would
	// re-render its ages).
	at := time.Now()
	e.hub.Refresh(at)
	board := openRaw(t, e.base, templates.PageBoard)
	pane := openRaw(t, e.base, templates.PagePane) // a retitle does not change the pane
	waitUntil(t, func() bool { return e.hub.Clients() == 2 })
	board.patch(t, 10*time.Second)
	pane.patch(t, 10*time.Second)
	// next is the stream's next heartbeat or patch (the kind and, for a
	// patch, its markup), in the order the stream carries them.
	next := func(rs *rawStream) (beat bool, patch string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case ev, ok := <-rs.events:
				if !ok {
					t.Fatal("the stream ended")
				}
				switch {
				case ev.Type == "datastar-patch-signals" && strings.Contains(ev.Data, `"_hb":true`):
					return true, ""
				case ev.Type == "datastar-patch-elements":
					return false, elementsPayload(ev.Data)
				}
			case <-deadline:
				t.Fatal("nothing on the stream within 10 s")
			}
		}
	}
	retitle := func(title string) {
		t.Helper()
		e.board.Ingest([]state.Event{{Type: "session.titled", Session: "session-00", Title: title}}, at)
		e.hub.Refresh(at)
		for {
			beat, p := next(board)
			if beat {
				t.Fatalf("a heartbeat on the board, carrying changes, before %q", title)
			}
			if strings.Contains(p, title) {
				return
			}
		}
	}
	// The board carries a change every round; the pane, open before the
	// first, carries none.
	var cut time.Time
	for i := range 5 {
		cut = time.Now() // before the board's last write, after the pane's
		retitle(fmt.Sprint("round ", i))
	}
	// A beat that finds silent every stream that wrote nothing since cut.
	// The pane's own first write may not be done with yet (its handler
	// can be a moment past the write it read, the stream still its own):
	// the same beat again until the pane has its heartbeat. Once beaten it
	// is not silent since cut, so it gets one, however many beats.
	beat := cut.Add(e.hub.HeartbeatEvery - e.hub.Clock/2)
	waitUntil(t, func() bool {
		e.hub.Beat(beat)
		select {
		case ev := <-pane.events:
			if ev.Type != "datastar-patch-signals" || !strings.Contains(ev.Data, `"_hb":true`) {
				t.Fatalf("the idle pane got %s %q, want a heartbeat", ev.Type, ev.Data)
			}
			return true
		default:
			return false
		}
	})
	// The board wrote after cut: no heartbeat came before its next change
	// (retitle fails on one).
	retitle("after the beat")
	// Beaten once, the pane is not silent since cut: the same beat again
	// sends it nothing, so the next thing it carries is the change a new
	// session makes to it.
	e.hub.Beat(beat)
	e.board.Ingest([]state.Event{{Type: "session.opened", Session: "session-new", Cwd: "/src/new"}}, at)
	e.hub.Refresh(at)
	if beat, _ := next(pane); beat {
		t.Fatal("the pane got a second heartbeat from the same beat")
	}
}

// A tab that leaves is noticed by the writes to it (the heartbeat at the
// latest): its stream is gone within a few heartbeats.
func TestFanoutTabThatLeavesIsForgotten(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.HeartbeatEvery = 100 * time.Millisecond
	rs := openRaw(t, e.base, templates.PageBoard)
	keep := openRaw(t, e.base, templates.PageBoard)
	waitUntil(t, func() bool { return e.hub.Clients() == 2 })
	rs.conn.Close()
	start := time.Now()
	waitfor.Until(t, "the closed tab forgotten", func() bool { return e.hub.Clients() == 1 })
	t.Logf("a closed tab was forgotten %v after it closed", time.Since(start))
	if e.hub.Drops() != 0 {
		t.Error("a tab that left counted as a stalled reader")
	}
	select {
	case _, ok := <-keep.events:
		if !ok {
			t.Error("the other tab's stream ended")
		}
	case <-time.After(waitfor.Patience):
		t.Error("the other tab got no heartbeat")
	}
}

// The stream's response: the event-stream headers (and the locks'), with
// a body that runs to the end of the connection, neither chunked nor of a
// length; the page as of now comes first.
func TestFanoutResponseHead(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.Refresh(time.Now())
	rs := openRaw(t, e.base, templates.PageBoard)
	h := rs.head
	if h.StatusCode != 200 || h.Header.Get("Content-Type") != "text/event-stream" || h.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("head: %d %v", h.StatusCode, h.Header)
	}
	if !h.Close || len(h.TransferEncoding) != 0 || h.ContentLength != -1 {
		t.Errorf("body framing: close %v, transfer-encoding %v, length %d; want a body to the end of the connection", h.Close, h.TransferEncoding, h.ContentLength)
	}
	if p := rs.patch(t, waitfor.Patience); !strings.HasPrefix(p, `<div id="board"`) {
		t.Errorf("the first frame is not the board: %.80q", p)
	}
}

// Where the connection cannot be taken over (HTTP/2), the handler serves
// the stream itself: it still gets the page, every change and heartbeats,
// and ends when the hub closes.
func TestFanoutHTTP2StreamIsServedByItsHandler(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.HeartbeatEvery = 100 * time.Millisecond
	fill(t, e, 2)
	e.hub.Refresh(time.Now())
	ts := httptest.NewUnstartedServer(e.srv.Handler())
	ts.EnableHTTP2 = true
	ts.StartTLS()
	defer ts.Close()
	client := ts.Client()
	client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}} //nolint:gosec // a test server's own certificate
	req, _ := http.NewRequest("GET", ts.URL+"/agents-notch/stream?page=board", nil)
	req.Host = strings.TrimPrefix(e.base, "http://") // the Host lock knows the first server's port
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := client.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.ProtoMajor != 2 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("proto %s, Content-Type %q", res.Proto, res.Header.Get("Content-Type"))
	}
	events := make(chan sse.Event, 256)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev bytes.Buffer
		for sc.Scan() {
			ev.Write(sc.Bytes())
			ev.WriteByte('\n')
			if sc.Text() == "" {
				for _, x := range sse.Parse(ev.Bytes()) {
					events <- x
				}
				ev.Reset()
			}
		}
	}()
	rs := &rawStream{events: events}
	if p := rs.patch(t, waitfor.Patience); !strings.HasPrefix(p, `<div id="board"`) {
		t.Fatalf("the first frame is not the board: %.80q", p)
	}
	for i := range 5 {
		e.board.Ingest([]state.Event{{Type: "session.titled", Session: "session-00", Title: fmt.Sprint("over h2 ", i)}}, time.Now())
		e.hub.Refresh(time.Now())
		if p := rs.patch(t, waitfor.Patience); !strings.Contains(p, fmt.Sprint("over h2 ", i)) {
			t.Fatalf("change %d: got %.120q", i, p)
		}
	}
	beat := false
	for deadline := time.After(waitfor.Patience); !beat; {
		select {
		case ev := <-events:
			beat = ev.Type == "datastar-patch-signals"
		case <-deadline:
			t.Fatal("no heartbeat over HTTP/2")
		}
	}
	e.hub.Close()
	select {
	case <-drainEvents(events):
	case <-time.After(waitfor.Patience):
		t.Fatal("the HTTP/2 stream stayed open after the hub closed")
	}
	if _, err := io.Copy(io.Discard, res.Body); err != nil && !strings.Contains(err.Error(), "closed") {
		t.Logf("body after close: %v", err)
	}
}

func drainEvents(ch <-chan sse.Event) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for range ch {
		}
		close(done)
	}()
	return done
}
