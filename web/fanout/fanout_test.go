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
