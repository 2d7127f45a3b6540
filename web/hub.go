package web

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a-h/templ"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/window"
	"github.com/notch-web/notch-web/internal/htmldiff"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/pace"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/web/templates"
)

// Hub renders the live pages once per change and fans the same bytes out to
// every open stream. Each stream has a queue of one where the newest frame
// wins, so a slow tab never holds up the others or the publisher; a small
// pool of writers puts the frames on the wire (fanout.go).
type Hub struct {
	board    *host.Board
	window   *window.Supervisor // the desktop window's (nil: none), whose state the pane shows
	settings *settings.Service
	log      *slog.Logger

	// HeartbeatEvery is how often an idle stream gets a heartbeat, so a page
	// can tell a live host from a dead one.
	HeartbeatEvery time.Duration
	// WriteTimeout drops a stream whose reader stalls this long.
	WriteTimeout time.Duration
	// Mesh is the other machines this board shows (host/mesh); nil on a
	// board of one machine. Set it before Run.
	Mesh Mesh
	// Writers is the size of the pool that writes frames to the streams;
	// 0 means one per CPU the process may use (GOMAXPROCS). Set it before
	// the first stream opens.
	Writers int
	// MinRefresh is the least time between two renders: a burst of changes
	// is rendered at this pace, the newest state each time (0: no pause).
	MinRefresh time.Duration
	// MaxStreams is how many streams are admitted at once (run sizes it
	// from the process's descriptor limit, internal/fdlimit); beyond it a
	// stream is answered 503 with Retry-After, so the health check and the
	// writes keep answering. 0 means no cap.
	MaxStreams int

	mu         sync.Mutex
	clients    map[*stream]struct{}
	latest     map[string][]byte         // the whole fragment, as a frame, per page
	html       map[string][]byte         // the last render, per page
	trees      map[string]*htmldiff.Tree // the last render parsed, per page
	refreshMu  sync.Mutex                // one refresh at a time
	key        refreshKey
	rendered   bool
	done       chan struct{}
	closed     bool
	queued     []*stream // publish's batch for the writers, reused
	pool       writers
	fanoutOnce sync.Once
	slowLanes  atomic.Int64 // streams whose socket is full, waiting in a slow lane
	renders    atomic.Int64
	drops      atomic.Int64
	full       atomic.Int64
}

// DefaultMinRefresh paces the renders of a burst of changes: at most one
// every 10 ms (a change after a quiet spell is rendered at once).
const DefaultMinRefresh = 10 * time.Millisecond

// streamSendBuffer is the kernel send buffer of a stream's connection.
const streamSendBuffer = 8 << 10

type connKey struct{}

// ConnContext is the http.Server's ConnContext hook: it lets a stream that
// cannot take its connection over (HTTP/2) still reach its TCP connection
// to size the send buffer.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// NewHub returns a hub for the host's board and window and the settings,
// admitting at most maxStreams streams at once (0: no cap).
func NewHub(hst *host.Host, s *settings.Service, log *slog.Logger, maxStreams int) *Hub {
	h := &Hub{
		board: hst.Board(), window: hst.Window(), settings: s, log: log, MaxStreams: maxStreams,
		HeartbeatEvery: time.Second, WriteTimeout: 4 * time.Second, MinRefresh: DefaultMinRefresh,
		clients: map[*stream]struct{}{}, latest: map[string][]byte{}, html: map[string][]byte{}, trees: map[string]*htmldiff.Tree{}, done: make(chan struct{}),
	}
	h.pool.cond.L = &h.pool.mu
	return h
}

// Renders counts the changes rendered so far (each renders every page once).
func (h *Hub) Renders() int64 { return h.renders.Load() }

// Drops counts the streams dropped because their reader stalled.
func (h *Hub) Drops() int64 { return h.drops.Load() }

// Refused counts the streams refused because MaxStreams were open.
func (h *Hub) Refused() int64 { return h.full.Load() }

// Clients counts the open streams.
func (h *Hub) Clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

// Close ends every open stream (called on shutdown) and the writers. Streams
// opened later end at once.
func (h *Hub) Close() {
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

// Run re-renders when the board or the settings change, and on a short tick
// for what time alone changes (a followed host going stale, a timer retire),
// until ctx ends. A tick that finds nothing changed renders nothing.
func (h *Hub) Run(ctx context.Context) {
	bc, stopB := h.board.Subscribe()
	defer stopB()
	sc, stopS := h.settings.Subscribe()
	defer stopS()
	wc, stopW := h.window.Subscribe() // nil-safe
	defer stopW()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	h.Refresh(time.Now())
	// A burst of changes renders at most every MinRefresh, the latest state
	// each time, so the renders never crowd out the requests that make the
	// changes. Only a render counts: a tick that finds nothing changed, or
	// the first render, never delays the next change.
	p := pace.Pace{Gap: h.MinRefresh}
	for {
		select {
		case <-ctx.Done():
			return
		case <-bc:
		case <-sc:
		case <-wc:
		case <-tick.C:
		}
		if !p.Wait(ctx) {
			return
		}
		if h.Refresh(time.Now()) {
			p.Mark(time.Now())
		}
	}
}

// Models returns the view models of both pages as of now.
func (h *Hub) Models(now time.Time) (templates.BoardView, templates.PaneView) {
	doc, unknown := h.board.View(now)
	bv := templates.BoardView{Doc: doc, Unknown: unknown, Follow: h.board.Follow(), NowMs: now.UnixMilli(), Approvals: approvalsView(h.board.Cards())}
	pv := templates.PaneView{View: h.settings.View(), Summary: doc.Summary, Unknown: unknown, Window: h.window.Status()}
	if h.Mesh != nil {
		bv.UnknownRows, pv.Machines = h.board.Unknown(), machineViews(h.Mesh.Machines())
	}
	return bv, pv
}

// refreshKey is what decides whether the pages must be rendered again: a
// change of the fold or the followed document, of the settings, of
// staleness, or of which rows exist (a timer retire). A new wallMs alone is
// not a change.
type refreshKey struct {
	board, settings uint64
	unknown         bool
	rows            int
	window          windowKey
}

// windowKey is what the pane draws of the window's state.
type windowKey struct {
	state       window.State
	since, next int64
	crashed     bool
	lastExit    string
}

// Refresh renders and publishes both pages if anything they draw changed,
// and says whether it did. The board goes out before the pane is rendered:
// it is the page most tabs watch.
func (h *Hub) Refresh(now time.Time) bool {
	h.refreshMu.Lock()
	defer h.refreshMu.Unlock()
	// The versions are read before the snapshot, so a change racing this
	// refresh bumps them past the key and is rendered by the next one.
	key := refreshKey{board: h.board.Version(), settings: h.settings.Version()}
	bv, pv := h.Models(now)
	key.unknown, key.rows = bv.Unknown, len(bv.Doc.Sessions)
	w := pv.Window
	key.window = windowKey{w.State, w.Since.UnixMilli(), w.Next.UnixMilli(), w.Crashed, w.LastExit}
	if h.rendered && key == h.key {
		return false
	}
	h.key, h.rendered = key, true
	h.renders.Add(1)
	for _, p := range []struct {
		page string
		comp templ.Component
	}{{templates.PageBoard, templates.Board(bv)}, {templates.PagePane, templates.Pane(pv)}} {
		html, err := renderHTML(p.comp)
		if err != nil {
			h.log.Error("rendering a page", logx.Err("RenderError", err),
				slog.Group("data", "page", p.page))
			continue
		}
		h.mu.Lock()
		h.publish(p.page, html)
		h.mu.Unlock()
	}
	return true
}

// publish sends a page's new render to its streams: the elements that
// changed when a stream is up to date, the whole fragment when it is behind
// (its queued frame is replaced, so it must not miss a piece) or new.
// Called with h.mu held.
func (h *Hub) publish(page string, html []byte) {
	prev := h.html[page]
	if bytes.Equal(prev, html) {
		return // the change did not touch this page
	}
	full := elementsFrame(html)
	small := full
	parts, tree := htmldiff.Diff(prev, h.trees[page], html)
	h.trees[page] = tree
	if parts != nil {
		small = elementsFrame(htmldiff.Join(parts))
	}
	h.html[page], h.latest[page] = html, full
	// Each stream gets the patch, or the whole page when a frame of its
	// own is still waiting (it is behind: the newest board wins and no
	// patch is ever skipped). The streams that had nothing waiting go to
	// the writers in one batch.
	q := h.queued[:0]
	for s := range h.clients {
		if s.page == page && s.offer(small, full) {
			q = append(q, s)
		}
	}
	h.pool.push(q...)
	clear(q)
	h.queued = q
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
func (h *Hub) subscribe(s *stream) ([]byte, error) {
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
	return h.latest[s.page], nil
}

func (h *Hub) unsubscribe(s *stream) {
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
func (h *Hub) Serve(w http.ResponseWriter, r *http.Request, page string) {
	s := &stream{page: page}
	first, err := h.subscribe(s)
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
		h.open(s, conn, responseHead(hdr, time.Now()), first)
		return
	}
	h.serveDedicated(w, r, s, first)
}

// renderHTML renders a component once.
func renderHTML(comp templ.Component) ([]byte, error) {
	var b bytes.Buffer
	if err := comp.Render(context.Background(), &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
