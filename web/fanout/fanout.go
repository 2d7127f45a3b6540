// Package fanout sends a live page's renders to every open stream of it:
// the byte-level half of the board's SSE. Publish takes a page's new HTML,
// diffs it against the last (internal/htmldiff) and frames the changed
// elements once (internal/sse); Serve admits a stream (up to MaxStreams),
// takes its connection over from net/http and hands it to a small pool of
// writers (writers.go, stream.go), so every tab gets the same bytes, a slow
// tab never holds up the others, and an idle one gets a heartbeat.
//
// It knows nothing of the board or the settings: web's Hub renders the
// pages and publishes them here.
package fanout

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/notch-web/notch-web/internal/htmldiff"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/sse"
)

// Fanout is the set of open streams, per page, and what each page last
// showed. Create it with New; set the exported fields before the first
// stream opens.
type Fanout struct {
	log *slog.Logger

	// HeartbeatEvery is how often an idle stream gets a heartbeat, so a page
	// can tell a live host from a dead one.
	HeartbeatEvery time.Duration
	// Clock, when set before the first stream opens, is the period of a
	// beat the fan-out's owner keeps (host mode: state.json's, through
	// state.Writer.OnBeat) and calls Beat on: the fan-out then starts no
	// heartbeat timer of its own, and the streams' heartbeats share the
	// wake-up the beat takes anyway, instead of waking the process once
	// more every second (issue 34). 0: the fan-out keeps its own time.
	Clock time.Duration
	// WriteTimeout drops a stream whose reader stalls this long.
	WriteTimeout time.Duration
	// Writers is the size of the pool that writes frames to the streams;
	// 0 means one per CPU the process may use (GOMAXPROCS).
	Writers int
	// MaxStreams is how many streams are admitted at once (run sizes it
	// from the process's descriptor limit, internal/fdlimit); beyond it a
	// stream is answered 503 with Retry-After, so the health check and the
	// writes keep answering. 0 means no cap.
	MaxStreams int

	mu         sync.Mutex
	clients    map[*stream]struct{}
	latest     map[string][]byte         // the whole fragment, as a frame, per page (nil until asked for: frameLocked)
	html       map[string][]byte         // the last render, per page
	trees      map[string]*htmldiff.Tree // the last render parsed, per page
	done       chan struct{}
	closed     bool
	queued     []*stream // Publish's batch for the writers, reused
	pool       writers
	fanoutOnce sync.Once
	beating    []*stream    // the heartbeat's streams due, reused (beatSilent)
	slowLanes  atomic.Int64 // streams whose socket is full, waiting in a slow lane
	drops      atomic.Int64
	full       atomic.Int64
}

// New returns a fan-out with no streams, admitting at most maxStreams at
// once (0: no cap).
func New(log *slog.Logger, maxStreams int) *Fanout {
	h := &Fanout{
		log: log, MaxStreams: maxStreams,
		HeartbeatEvery: time.Second, WriteTimeout: 4 * time.Second,
		clients: map[*stream]struct{}{}, latest: map[string][]byte{}, html: map[string][]byte{}, trees: map[string]*htmldiff.Tree{}, done: make(chan struct{}),
	}
	h.pool.cond.L = &h.pool.mu
	return h
}

// SlowLanes counts the streams whose socket is full now, each finishing its
// write in a slow lane of its own.
func (h *Fanout) SlowLanes() int64 { return h.slowLanes.Load() }

// streamSendBuffer is the kernel send buffer of a stream's connection.
const streamSendBuffer = 8 << 10

type connKey struct{}

// ConnContext is the http.Server's ConnContext hook: it lets a stream that
// cannot take its connection over (HTTP/2) still reach its TCP connection
// to size the send buffer.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// Drops counts the streams dropped because their reader stalled.
func (h *Fanout) Drops() int64 { return h.drops.Load() }

// Refused counts the streams refused because MaxStreams were open.
func (h *Fanout) Refused() int64 { return h.full.Load() }

// Clients counts the open streams.
func (h *Fanout) Clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

// Close ends every open stream (called on shutdown) and the writers. Streams
// opened later end at once.
func (h *Fanout) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	close(h.done)
	open := make([]*stream, 0, len(h.clients))
	for s := range h.clients {
		open = append(open, s)
	}
	h.mu.Unlock()
	h.pool.close()
	for _, s := range open {
		// Closing the connection ends the response: its body runs to the
		// end of the connection. A write in flight fails and gives up.
		if conn, _ := s.end(); conn != nil {
			_ = conn.Close()
		}
		h.unsubscribe(s)
	}
}

// Publish sends a page's new render to its streams: the elements that
// changed when a stream is up to date, the whole fragment when it is behind
// (its queued frame is replaced, so it must not miss a piece) or new. A
// render equal to the last one sends nothing.
func (h *Fanout) Publish(page string, html []byte) {
	var here [inlineWrites]*stream
	h.writeNow(h.publish(page, html, here[:0]))
}

// publish diffs and frames the render and offers it to the page's streams.
// The streams that had nothing waiting are written by the caller when they
// are few (appended to here, which it returns), else by the writers.
func (h *Fanout) publish(page string, html []byte, here []*stream) []*stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	prev := h.html[page]
	if bytes.Equal(prev, html) {
		return here // the change did not touch this page
	}
	// The last tree is Diff's to keep (as this render's) or recycle: no
	// one else holds it.
	parts, tree := htmldiff.Diff(prev, h.trees[page], html)
	h.trees[page] = tree
	// The whole page as a frame is made only when a stream needs it (one
	// that is behind or new, or no patch): most changes reach streams
	// that are up to date, and making it was a fifth of the publish.
	h.html[page], h.latest[page] = html, nil
	full := func() []byte { return h.frameLocked(page) }
	var small []byte
	if parts != nil {
		small = sse.Elements(htmldiff.Join(parts))
	} else {
		small = full()
	}
	// Each stream gets the patch, or the whole page when a frame of its
	// own is still waiting (it is behind: the newest board wins and no
	// patch is ever skipped). The streams that had nothing waiting go to
	// the writers in one batch, or, a person's few tabs, back to the
	// caller.
	q := h.queued[:0]
	for s := range h.clients {
		if s.page == page && s.offer(small, full) {
			q = append(q, s)
		}
	}
	if len(q) <= cap(here) {
		here = append(here, q...)
	} else {
		h.pool.push(q...)
	}
	clear(q)
	h.queued = q
	return here
}

// errFull and errClosed are subscribe's refusals.
var (
	errFull   = errors.New("too many open streams")
	errClosed = errors.New("shutting down")
)

// subscribe adds s to the streams and returns the frame it must be sent
// first: the whole page as of now (nil before the first render). The
// caller owns s until it has written that frame and released it, and every
// change from now on reaches s.
func (h *Fanout) subscribe(s *stream) ([]byte, error) {
	s.busy = true
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errClosed
	}
	if h.MaxStreams > 0 && len(h.clients) >= h.MaxStreams {
		return nil, errFull
	}
	h.clients[s] = struct{}{}
	return h.frameLocked(s.page), nil
}

// frameLocked is the whole of a page's last render as a frame (nil before
// the first), made once per render when first asked for. h.mu is held.
func (h *Fanout) frameLocked(page string) []byte {
	if f := h.latest[page]; f != nil {
		return f
	}
	html, ok := h.html[page]
	if !ok {
		return nil
	}
	f := sse.Elements(html)
	h.latest[page] = f
	return f
}

func (h *Fanout) unsubscribe(s *stream) {
	h.mu.Lock()
	_, was := h.clients[s]
	delete(h.clients, s)
	n := len(h.clients)
	h.mu.Unlock()
	if was {
		h.log.Debug("stream closed", "log_type", logx.TypeStream, slog.Group("data", "page", s.page, "streams", n))
	}
}

// retryFull is the Retry-After of a stream refused for the cap, in seconds.
const retryFull = "5"

// Serve streams page to w until the client leaves, the hub closes or a write
// stalls past WriteTimeout. Past MaxStreams it answers 503 with Retry-After
// and Connection: close instead (the page's stream retries by itself). The response head is
// written here and the connection handed to the writers (stream.go): Serve
// returns at once, and the stream lives on without a goroutine.
func (h *Fanout) Serve(w http.ResponseWriter, r *http.Request, page string) {
	h.ServeUntil(w, r, page, nil)
}

// ServeUntil is Serve for a stream that must also end when end is done
// (a revoked device's): a hijacked stream outlives its request's context,
// so that context alone cannot end it. A nil end never ends.
func (h *Fanout) ServeUntil(w http.ResponseWriter, r *http.Request, page string, end context.Context) {
	h.ServeWith(w, r, page, end, nil)
}

// ServeWith is ServeUntil whose stream starts with intro, a frame of this
// stream's own (what differs by viewer: a paired device's role), before
// the page every stream shares.
func (h *Fanout) ServeWith(w http.ResponseWriter, r *http.Request, page string, end context.Context, intro []byte) {
	s := &stream{page: page}
	first, err := h.subscribe(s)
	if len(intro) > 0 && err == nil {
		first = slices.Concat(intro, first) // first is the frame every stream shares: never appended to
	}
	switch {
	case errors.Is(err, errFull):
		h.full.Add(1)
		// Closed, not kept alive: a refused client that retries on the same
		// connection would hold a descriptor each until none are left for
		// /healthz, the hooks and the settings.
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", retryFull)
		http.Error(w, "too many open streams; retry later", http.StatusServiceUnavailable)
		return
	case err != nil:
		w.Header().Set("Connection", "close")
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	h.startFanout()
	h.log.Debug("stream opened", "log_type", logx.TypeStream, slog.Group("data", "page", page, "streams", h.Clients()))
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		if end != nil {
			s.mu.Lock()
			s.stopEnd = context.AfterFunc(end, func() { h.endStream(s, context.Cause(end)) })
			s.mu.Unlock()
		}
		h.open(s, conn, responseHead(hdr, time.Now()), first)
		return
	}
	h.serveDedicated(w, r, s, first)
}

// Last is the page's last render published (nil before the first).
func (h *Fanout) Last(page string) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.html[page]
}
