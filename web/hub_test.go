package web

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"

	"github.com/notch-web/notch-web/internal/waitfor"
)

// openStream opens a board stream and returns a channel of the data lines
// of each patch-elements event it receives.
func openStream(t *testing.T, base string) (<-chan string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/agents-notch/stream?page=board", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("stream Content-Type %q", ct)
	}
	out := make(chan string, 1024)
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev, data strings.Builder
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.WriteString(strings.TrimPrefix(line, "event: "))
			case strings.HasPrefix(line, "data: "):
				data.WriteString(strings.TrimPrefix(line, "data: "))
			case line == "":
				if ev.String() == "datastar-patch-elements" {
					out <- data.String()
				}
				ev.Reset()
				data.Reset()
			}
		}
		close(out)
	}()
	return out, cancel
}

func waitFor(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case s, ok := <-ch:
			if !ok {
				t.Fatalf("stream closed before %q arrived", want)
			}
			if strings.Contains(s, want) {
				return
			}
		case <-timeout:
			t.Fatalf("%q never arrived", want)
		}
	}
}

func TestHubRendersOncePerChangeWhateverTheTabs(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.hub.Run(ctx)
	const tabs = 25
	streams := make([]<-chan string, tabs)
	for i := range streams {
		var stop func()
		streams[i], stop = openStream(t, e.base)
		defer stop()
	}
	for e.hub.Clients() < tabs {
		time.Sleep(5 * time.Millisecond)
	}
	before := e.hub.Renders()
	const changes = 5
	for i := 0; i < changes; i++ {
		id := fmt.Sprintf("sess-%d", i)
		if _, err := e.board.Ingest([]state.Event{{Type: "session.opened", Session: id}}, time.Now()); err != nil {
			t.Fatal(err)
		}
		for _, s := range streams {
			waitFor(t, s, id)
		}
	}
	// Wait for the tick that would render a "change" made only of a new clock.
	time.Sleep(600 * time.Millisecond)
	if got := e.hub.Renders() - before; got != changes {
		t.Errorf("%d changes seen by %d tabs took %d renders, want %d", changes, tabs, got, changes)
	}
}

// A change after a quiet spell is rendered at once, even just after a tick
// that rendered nothing; a burst is paced by MinRefresh.
func TestHubPacesBurstsNotTicks(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.MinRefresh = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.hub.Run(ctx)
	s, stop := openStream(t, e.base)
	defer stop()
	waitUntil(t, func() bool { return e.hub.Clients() == 1 })
	time.Sleep(600 * time.Millisecond) // two ticks that find nothing to render
	if _, err := e.board.Ingest([]state.Event{{Type: "session.opened", Session: "after-quiet"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "after-quiet") // were the ticks pacing, an hour away
	before := e.hub.Renders()
	if _, err := e.board.Ingest([]state.Event{{Type: "session.opened", Session: "in-a-burst"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if got := e.hub.Renders() - before; got != 0 {
		t.Errorf("a change right after a render was rendered %d times within the pace", got)
	}
}

func TestHubDropsAStalledTabWithoutDelayingOthers(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.WriteTimeout = 300 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.hub.Run(ctx)

	// A tab that opens the stream and never reads, with a tiny receive buffer.
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(conn, "GET /agents-notch/stream?page=board HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(e.base, "http://"))

	healthy, stop := openStream(t, e.base)
	defer stop()
	for e.hub.Clients() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	// Big boards, many changes: the stalled tab's buffers fill up.
	title := strings.Repeat("a long title that fills the socket buffers ", 20)
	for i := 0; e.hub.Drops() == 0; i++ {
		if i > 20000 {
			t.Fatal("the stalled tab was never dropped")
		}
		id := fmt.Sprintf("s%d", i)
		evs := []state.Event{{Type: "session.opened", Session: id}, {Type: "session.titled", Session: id, Title: fmt.Sprintf("%s %d", title, i)}}
		if _, err := e.board.Ingest(evs, time.Now()); err != nil {
			t.Fatal(err)
		}
		if i%40 == 39 {
			e.board.Retire(fmt.Sprintf("s%d", i-39))
		}
		// The healthy tab keeps up with every change meanwhile.
		waitFor(t, healthy, fmt.Sprintf("%s %d", title, i))
	}
	// The dropped stream unsubscribes as its handler returns.
	deadline := time.Now().Add(5 * time.Second)
	for e.hub.Clients() != 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := e.hub.Clients(); n != 1 {
		t.Errorf("%d clients after the drop, want the healthy one only", n)
	}
}

func TestHubShutdownEndsOpenStreams(t *testing.T) {
	e := newEnv(t, envOpts{})
	var streams []<-chan string
	for i := 0; i < 3; i++ {
		s, stop := openStream(t, e.base)
		defer stop()
		streams = append(streams, s)
	}
	for e.hub.Clients() < 3 {
		time.Sleep(5 * time.Millisecond)
	}
	e.hub.Close()
	for _, s := range streams {
		select {
		case <-drain(s):
		case <-time.After(waitfor.Patience):
			t.Fatal("a stream stayed open after the hub closed")
		}
	}
	// A stream opened after shutdown is refused at once (the page retries).
	res, err := http.Get(e.base + "/agents-notch/stream?page=board")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a stream opened after close: %d, want 503", res.StatusCode)
	}
}

func drain(s <-chan string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for range s {
		}
		close(done)
	}()
	return done
}

func TestHubSkipsAChangeOfClockAlone(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.Refresh(time.Now())
	n := e.hub.Renders()
	e.hub.Refresh(time.Now().Add(time.Minute))
	if e.hub.Renders() != n {
		t.Error("a new wallMs alone re-rendered the board")
	}
	e.board.Ingest([]state.Event{{Type: "session.opened", Session: "x"}}, time.Now())
	e.hub.Refresh(time.Now())
	if e.hub.Renders() != n+1 {
		t.Error("a new session did not re-render the board")
	}
}

// Past MaxStreams a stream is answered 503 with Retry-After, while the
// health check and writes keep answering; a freed place is taken again.
func TestHubCapsStreams(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.MaxStreams = 2
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.hub.Run(ctx)
	_, stop1 := openStream(t, e.base)
	_, stop2 := openStream(t, e.base)
	defer stop2()
	waitUntil(t, func() bool { return e.hub.Clients() == 2 })
	res, err := http.Get(e.base + "/agents-notch/stream?page=board")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("third stream: %d, Retry-After %q; want 503 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if status, body := e.do(t, "GET", "/healthz", "", nil); status != 200 || body["refused"] != 1.0 {
		t.Errorf("healthz while full: %d %v", status, body)
	}
	if status, _ := e.do(t, "POST", "/agents-notch/settings", `{"scale":1.5}`, nil); status != 200 {
		t.Errorf("a settings write while full: %d", status)
	}
	stop1()
	waitUntil(t, func() bool { return e.hub.Clients() == 1 })
	ch, stop3 := openStream(t, e.base)
	defer stop3()
	waitFor(t, ch, `id="board"`)
}

func waitUntil(t *testing.T, cond func() bool) { waitfor.Until(t, "the condition", cond) }

// A settings change patches the board's two settings elements, not the
// board: the settings live on #board-cfg and #board-vars, never on the
// board's own start tag.
func TestSettingsChangePatchesOnlyTheSettings(t *testing.T) {
	e := newEnv(t, envOpts{})
	for i := range 12 {
		e.board.Ingest([]state.Event{{Type: "session.opened", Session: fmt.Sprintf("s%d", i), Title: "a title"}}, time.Now())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.hub.Run(ctx)
	ch, stop := openStream(t, e.base)
	defer stop()
	waitFor(t, ch, `id="board"`)
	for _, body := range []string{`{"holdMs": 2100}`, `{"scale": 1.4}`, `{"anchor": "top-left"}`} {
		if status, _ := e.do(t, "POST", "/agents-notch/settings", body, nil); status != 200 {
			t.Fatalf("%s: %d", body, status)
		}
		var patch string
		deadline := time.After(10 * time.Second)
		for patch == "" {
			select {
			case p := <-ch:
				if strings.Contains(p, "board-cfg") || strings.Contains(p, "board-vars") {
					patch = p
				}
			case <-deadline:
				t.Fatalf("no patch for %s", body)
			}
		}
		if strings.Contains(patch, `id="board"`) || len(patch) > 600 {
			t.Errorf("%s sent %d bytes (the board: %v); want only the settings elements", body, len(patch), strings.Contains(patch, `id="board"`))
		}
	}
}

// TestHubClosesRefusedStreams: a stream refused for the cap is answered
// with Connection: close and the connection is closed, so a keep-alive
// client that retries cannot pile up descriptors until /healthz, hooks and
// settings stop answering (issue 19).
func TestHubClosesRefusedStreams(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.hub.MaxStreams = 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.hub.Run(ctx)
	_, stop := openStream(t, e.base)
	defer stop()
	waitUntil(t, func() bool { return e.hub.Clients() == 1 })

	conn, err := net.Dial("tcp", strings.TrimPrefix(e.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /agents-notch/stream?page=board HTTP/1.1\r\nHost: %s\r\nConnection: keep-alive\r\n\r\n", strings.TrimPrefix(e.base, "http://"))
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !res.Close {
		t.Errorf("refused stream: %d, Connection: close %v; want 503 with Connection: close", res.StatusCode, res.Close)
	}
	conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("the refused connection stays open (read: %v)", err)
	}
}
