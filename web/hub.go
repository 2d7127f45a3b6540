package web

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a-h/templ"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/window"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/pace"
	"github.com/notch-web/notch-web/security"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/web/fanout"
	"github.com/notch-web/notch-web/web/templates"
)

// Hub renders the live pages once per change and publishes each render to
// its fan-out (web/fanout), which sends the same bytes to every open
// stream: a queue of one per stream where the newest frame wins, so a slow
// tab never holds up the others or the renderer.
type Hub struct {
	// Fanout sends each render to the open streams (Serve, Clients,
	// Close and its counters are the fan-out's).
	*fanout.Fanout

	board    *host.Board
	window   *window.Supervisor // the desktop window's (nil: none), whose state the pane shows
	settings *settings.Service
	log      *slog.Logger

	// Mesh is the other machines this board shows (host/mesh); nil on a
	// board of one machine. Set it before Run.
	Mesh Mesh
	// Pushes are the push channels the pane lists (they are read at start
	// and do not change); nil when there are no pushes. Set it before Run.
	Pushes *templates.Pushes
	// Link is a joined machine's word on its hub (host/mesh); nil when
	// this machine joined none. Set it before Run.
	Link HubLink
	// Devices are the paired devices the pane lists (nil: none). Set it
	// before Run.
	Devices *security.Devices
	// MinRefresh is the least time between two renders: a burst of changes
	// is rendered at this pace, the newest state each time (0: no pause).
	MinRefresh time.Duration

	refreshMu sync.Mutex // one refresh at a time
	key       refreshKey
	rendered  bool
	renders   atomic.Int64
	alerts    host.Alerter // which rises of the board are alerts

	closing   chan struct{} // closed by Close
	closeOnce sync.Once
}

// DefaultMinRefresh paces the renders of a burst of changes: at most one
// every 10 ms (a change after a quiet spell is rendered at once).
const DefaultMinRefresh = 10 * time.Millisecond

// NewHub returns a hub for the host's board and window and the settings,
// admitting at most maxStreams streams at once (0: no cap).
func NewHub(hst *host.Host, s *settings.Service, log *slog.Logger, maxStreams int) *Hub {
	return &Hub{
		Fanout: fanout.New(log, maxStreams),
		board:  hst.Board(), window: hst.Window(), settings: s, log: log, MinRefresh: DefaultMinRefresh,
		closing: make(chan struct{}),
	}
}

// Close ends every open stream: the fan-out's, and the History page's,
// which end on Closing.
func (h *Hub) Close() {
	h.closeOnce.Do(func() {
		if h.closing != nil {
			close(h.closing)
		}
	})
	h.Fanout.Close()
}

// Closing is closed when the hub closes (nil for a hub not made by NewHub,
// which never closes).
func (h *Hub) Closing() <-chan struct{} { return h.closing }

// Renders counts the changes rendered so far (each renders every page once).
func (h *Hub) Renders() int64 { return h.renders.Load() }

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
	var dc <-chan struct{}
	if h.Devices != nil {
		var stopD func()
		dc, stopD = h.Devices.Subscribe()
		defer stopD()
	}
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
		case <-dc:
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
	bv := templates.BoardView{Doc: doc, Unknown: unknown, Follow: h.board.Follow(), NowMs: now.UnixMilli(), Approvals: approvalsView(h.board.Cards()), Usage: h.board.Usage(), Doors: h.board.Doors()}
	if !unknown {
		alerts := settings.Defaults.Alerts
		if doc.Schema != 0 {
			alerts = doc.Settings.Clamped().Alerts
		}
		a := h.alerts.Observe(doc, alerts, now)
		bv.Alert = templates.Alert{Seq: a.Seq, Status: a.Status, Session: a.Session}
	}
	pv := templates.PaneView{View: h.settings.View(), Summary: doc.Summary, Unknown: unknown, Window: h.window.Status(), Pushes: h.Pushes}
	if h.Link != nil {
		bv.HubLink = h.Link.HubLink()
	}
	if h.Devices != nil {
		pv.Devices = deviceViews(h.Devices.List())
	}
	if h.Mesh != nil {
		bv.UnknownRows, pv.Machines = h.board.Unknown(), machineViews(h.Mesh.Machines())
		pv.Summary, pv.UnknownRows = templates.TabSummary(doc, bv.UnknownRows)
		for _, r := range doc.Sessions {
			if h.board.IsRemote(r.ID) {
				if bv.RemoteRows == nil {
					bv.RemoteRows = map[string]bool{}
				}
				bv.RemoteRows[r.ID] = true
			}
		}
	}
	return bv, pv
}

// refreshKey is what decides whether the pages must be rendered again: a
// change of the fold or the followed document, of the settings, of
// staleness, or of which rows exist (a timer retire). A new wallMs alone is
// not a change.
type refreshKey struct {
	board, settings uint64
	devices         uint64
	unknown         bool
	rows            int
	window          windowKey
	link            string // a joined machine's word on its hub (the tick finds its change)
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
	if h.Devices != nil {
		key.devices = h.Devices.Version()
	}
	bv, pv := h.Models(now)
	key.unknown, key.rows, key.link = bv.Unknown, len(bv.Doc.Sessions), bv.HubLink
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
		h.Publish(p.page, html)
	}
	return true
}

// renderHTML renders a component once.
func renderHTML(comp templ.Component) ([]byte, error) {
	var b bytes.Buffer
	if err := comp.Render(context.Background(), &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
