package fanout

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/sse"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// serve starts an HTTP server whose every request is a stream of page.
func serve(t *testing.T, f *Fanout, page string) *httptest.Server {
	t.Helper()
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f.Serve(w, r, page) }))
	ts.Config.ConnContext = ConnContext
	ts.Start()
	t.Cleanup(func() { f.Close(); ts.Close() })
	return ts
}

// events reads a stream's events into a channel until it ends.
func events(t *testing.T, url string) (<-chan sse.Event, *http.Response) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, res
	}
	ch := make(chan sse.Event, 64)
	go func() {
		defer close(ch)
		defer res.Body.Close()
		br := bufio.NewReader(res.Body)
		var buf []byte
		for {
			line, err := br.ReadBytes('\n')
			buf = append(buf, line...)
			if len(line) == 1 { // a blank line ends an event
				for _, ev := range sse.Parse(buf) {
					ch <- ev
				}
				buf = buf[:0]
			}
			if err != nil {
				return
			}
		}
	}()
	return ch, res
}

func next(t *testing.T, ch <-chan sse.Event) sse.Event {
	t.Helper()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("the stream ended")
			}
			if ev.Type == "datastar-patch-signals" { // a heartbeat
				continue
			}
			return ev
		case <-time.After(waitfor.Patience):
			t.Fatal("no event")
		}
	}
}

// A stream gets the whole page first, then only the elements a render
// changed; a render equal to the last sends nothing.
func TestPublishSendsTheWholePageThenPatches(t *testing.T) {
	f := New(slog.New(slog.DiscardHandler), 0)
	f.Publish("board", []byte(`<div id="r"><div id="a">1</div><div id="b">x</div></div>`))
	ts := serve(t, f, "board")
	ch, _ := events(t, ts.URL)
	if ev := next(t, ch); !strings.Contains(ev.Data, `<div id="a">1</div>`) || !strings.Contains(ev.Data, `<div id="b">x</div>`) {
		t.Fatalf("first event %q, want the whole page", ev.Data)
	}
	waitfor.Until(t, "the stream to be counted", func() bool { return f.Clients() == 1 })
	f.Publish("board", []byte(`<div id="r"><div id="a">1</div><div id="b">x</div></div>`)) // the same: nothing
	f.Publish("board", []byte(`<div id="r"><div id="a">2</div><div id="b">x</div></div>`))
	if ev := next(t, ch); !strings.Contains(ev.Data, `<div id="a">2</div>`) || strings.Contains(ev.Data, `id="b"`) {
		t.Fatalf("second event %q, want a patch of #a alone", ev.Data)
	}
	if got := string(f.Last("board")); got != `<div id="r"><div id="a">2</div><div id="b">x</div></div>` {
		t.Errorf("Last = %q", got)
	}
}

// Past MaxStreams a stream is refused with 503, Retry-After and
// Connection: close, and counted; Close ends the open ones.
func TestRefusedPastTheCapAndClosed(t *testing.T) {
	f := New(slog.New(slog.DiscardHandler), 1)
	f.Publish("board", []byte(`<div id="a">1</div>`))
	ts := serve(t, f, "board")
	ch, _ := events(t, ts.URL)
	next(t, ch)
	_, res := events(t, ts.URL)
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !res.Close {
		t.Errorf("second stream: %d, Retry-After %q, close %v; want 503, a Retry-After and Connection: close",
			res.StatusCode, res.Header.Get("Retry-After"), res.Close)
	}
	if f.Refused() != 1 {
		t.Errorf("Refused = %d, want 1", f.Refused())
	}
	f.Close()
	for range ch { // ends
	}
	waitfor.Until(t, "no streams", func() bool { return f.Clients() == 0 })
}

// On its owner's clock (Clock) the fan-out keeps no heartbeat timer: an
// idle stream hears nothing until Beat, and Beat sends a heartbeat only to
// a stream silent for HeartbeatEvery less half a Clock.
func TestBeatOnTheOwnersClock(t *testing.T) {
	f := New(slog.New(slog.DiscardHandler), 0)
	f.HeartbeatEvery, f.Clock = 200*time.Millisecond, 100*time.Millisecond
	f.Publish("board", []byte(`<div id="a">1</div>`))
	ts := serve(t, f, "board")
	ch, _ := events(t, ts.URL)
	if ev := <-ch; ev.Type != "datastar-patch-elements" {
		t.Fatalf("first event %q, want the page", ev.Type)
	}
	waitfor.Until(t, "the stream to be counted", func() bool { return f.Clients() == 1 })
	var heard time.Time // when the last heartbeat arrived
	beats := func(wait time.Duration) (n int) {
		end := time.After(wait)
		for {
			select {
			case ev := <-ch:
				if ev.Type == "datastar-patch-signals" && strings.Contains(ev.Data, `"_hb":true`) {
					n++
					heard = time.Now()
				}
			case <-end:
				return n
			}
		}
	}
	// Three periods with no Beat: a fan-out on its own timer would have
	// sent about three.
	if n := beats(600 * time.Millisecond); n != 0 {
		t.Fatalf("%d heartbeats with no Beat: the fan-out kept a timer of its own", n)
	}
	f.Beat(time.Now())
	if n := beats(300 * time.Millisecond); n != 1 {
		t.Fatalf("%d heartbeats after a Beat to a stream silent for 600 ms, want 1", n)
	}
	// Written just before heard: silent for less than the 150 ms it takes.
	f.Beat(heard)
	if n := beats(100 * time.Millisecond); n != 0 {
		t.Fatalf("%d heartbeats to a stream that was not silent", n)
	}
	f.Beat(heard.Add(150 * time.Millisecond))
	if n := beats(300 * time.Millisecond); n != 1 {
		t.Fatalf("%d heartbeats after a Beat 150 ms after the last write, want 1", n)
	}
}
