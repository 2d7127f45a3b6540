package web

import (
	"bytes"
	"context"
	"hash/fnv"
	"io"
	"log/slog"
	"slices"
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
	"github.com/notch-web/notch-web/state"
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
	// Pushes are the push channels the pane lists (they follow
	// notify.json); nil when there are no pushes. Set it before Run.
	Pushes PushesSource
	// Link is a joined machine's word on its hub (host/mesh); nil when
	// this machine joined none. Set it before Run.
	Link HubLink
	// Hooks are the agents' hooks' health, the pane's banners and their
	// Reinstall (nil: none watched). Its changes are signalled through
	// Link, whose word says the same on the board. Set it before Run.
	Hooks HookHealth
	// Devices are the paired devices the pane lists (nil: none). Set it
	// before Run.
	Devices *security.Devices
	// MinRefresh is the least time between two renders: a burst of changes
	// is rendered at this pace, the newest state each time (0: no pause).
	MinRefresh time.Duration

	refreshMu sync.Mutex // one refresh at a time
	key       refreshKey
	seen      inputs    // the inputs of the last view built
	due       time.Time // when the clock alone may next change that view (zero: never)
	rendered  bool
	// pane and paneMachines are what the pane was last rendered from.
	pane         paneKey
	paneMachines []templates.Machine
	paneDevices  []templates.DeviceRow
	paneDrawn    bool
	// ledgerKey is what the ledger page was last rendered from: the
	// ledger's version and phase.
	ledgerKey   [2]uint64
	ledgerDrawn bool
	sizes       map[string]int // each page's last render, in bytes
	renders     atomic.Int64
	views       atomic.Int64
	alerts      host.Alerter // which rises of the board are alerts

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

// Views counts the hub's builds of the pages' view so far: one per change,
// and one when a change by time is due. An idle host builds none.
func (h *Hub) Views() int64 { return h.views.Load() }

// Run re-renders when the board, the settings or the window change, and
// when a change by time alone is due (a followed host going stale, a timer
// retire: Board.NextChange), until ctx ends. Between them it sleeps: a host
// where nothing happens wakes for nothing.
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
	var pc <-chan struct{}
	if h.Pushes != nil {
		var stopP func()
		pc, stopP = h.Pushes.Subscribe()
		defer stopP()
	}
	var lc <-chan struct{}
	if l, ok := h.Link.(linkSignal); ok {
		var stopL func()
		lc, stopL = l.SubscribeLink()
		defer stopL()
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	arm := func() {
		if due := h.nextDue(); due.IsZero() {
			timer.Stop()
		} else {
			timer.Reset(max(time.Until(due), 0))
		}
	}
	h.Refresh(time.Now())
	arm()
	// A burst of changes renders at most every MinRefresh, the latest state
	// each time, so the renders never crowd out the requests that make the
	// changes. Only a render counts: a wake-up that finds nothing changed,
	// or the first render, never delays the next change.
	p := pace.Pace{Gap: h.MinRefresh}
	for {
		select {
		case <-ctx.Done():
			return
		case <-bc:
		case <-sc:
		case <-wc:
		case <-dc:
		case <-pc:
		case <-lc:
		case <-timer.C:
		}
		if !p.Wait(ctx) {
			return
		}
		if h.Refresh(time.Now()) {
			p.Mark(time.Now())
		}
		arm()
	}
}

// PushesSource is the push channels the pane lists: they change when
// notify.json does.
type PushesSource interface {
	// Pushes is the pane's view of the channels now.
	Pushes() *templates.Pushes
	// Version counts their changes; Subscribe wakes after each.
	Version() uint64
	Subscribe() (<-chan struct{}, func())
}

// linkSignal is a HubLink that says when its word changes (host/mesh's
// Node): the hub wakes for it as for a change of the board.
type linkSignal interface {
	SubscribeLink() (<-chan struct{}, func())
}

// nextDue is when the clock alone may next change the last view built.
func (h *Hub) nextDue() time.Time {
	h.refreshMu.Lock()
	defer h.refreshMu.Unlock()
	return h.due
}

// Models returns the view models of both pages as of now.
func (h *Hub) Models(now time.Time) (templates.BoardView, templates.PaneView) {
	doc, unknown := h.board.View(now)
	bv := templates.BoardView{Doc: doc, Unknown: unknown, Follow: h.board.Follow(), NowMs: now.UnixMilli(), Approvals: approvalsView(h.board.Cards()), Usage: h.board.Usage(), Spent: h.board.Spent(), Doors: h.board.Doors()}
	if !unknown {
		alerts := settings.Defaults.Alerts
		if doc.Schema != 0 {
			alerts = doc.Settings.Clamped().Alerts
		}
		a := h.alerts.Observe(doc, alerts, now)
		bv.Alert = templates.Alert{Seq: a.Seq, Status: a.Status, Session: a.Session}
	}
	bv.Ledger = templates.NewLedgerView(h.board.Ledger().Snapshot(now), projectOf(doc), h.machineName())
	pv := templates.PaneView{View: h.settings.View(), Summary: doc.Summary, Unknown: unknown, Window: h.window.Status()}
	if h.Pushes != nil {
		pv.Pushes = h.Pushes.Pushes()
	}
	if h.Link != nil {
		bv.HubLink = h.Link.HubLink()
	}
	if h.Devices != nil {
		pv.Devices = deviceViews(h.Devices.List())
	}
	if h.Hooks != nil {
		pv.HookFaults = h.Hooks.Faults()
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
		// With rows of other machines on it, the lane names each waiting
		// row's machine, this one's too.
		if n, ok := h.Mesh.(interface{ Name() string }); ok && len(bv.RemoteRows) > 0 {
			bv.Machine = n.Name()
		}
	}
	return bv, pv
}

// inputs are what the pages are drawn from, as far as they can change
// without the clock: the board's version (the fold or the followed
// document, the approval cards, the statuslines' usage, the terminals'
// doors, the other machines' rows, cards and list, which all signal the
// board), the settings' and the paired devices' versions, the window's
// state and a joined machine's word on its hub. While they stay
// equal and no change by time is due, the view is not even built.
type inputs struct {
	board, settings uint64
	devices         uint64 // the paired devices' version (the pane lists them)
	pushes          uint64 // the push channels' version (the pane lists them)
	window          windowKey
	link            string // a joined machine's word on its hub (HubLink; its change is signalled by linkSignal)
}

// refreshKey is what decides whether the pages must be rendered again: a
// change of the inputs, of staleness, or of which rows exist (a timer
// retire). A new wallMs alone is not a change.
type refreshKey struct {
	inputs
	ledger  uint64 // the ledger's phase: which windows are stale or reset (host/ledger)
	unknown bool
	rows    int
	ids     uint64 // the rows' ids, hashed in order: a retire past MaxSessions keeps the count
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
	// The inputs are read before the snapshot, so a change racing this
	// refresh bumps them past the key and is rendered by the next one.
	w := h.window.Status()
	in := inputs{board: h.board.Version(), settings: h.settings.Version(),
		window: windowKey{w.State, w.Since.UnixMilli(), w.Next.UnixMilli(), w.Crashed, w.LastExit}}
	if h.Devices != nil {
		in.devices = h.Devices.Version()
	}
	if h.Pushes != nil {
		in.pushes = h.Pushes.Version()
	}
	if h.Link != nil {
		in.link = h.Link.HubLink()
	}
	if h.rendered && in == h.seen && (h.due.IsZero() || now.Before(h.due)) {
		return false // nothing the pages draw can have changed
	}
	// A window's reset that came is the ledger's to tell (a push), once.
	led := h.board.Ledger()
	led.Step(now)
	h.views.Add(1)
	bv, pv := h.Models(now)
	h.seen, h.due = in, earliest(h.board.NextChange(bv.Doc, bv.Unknown), led.NextChange(now))
	key := refreshKey{inputs: in, ledger: led.Phase(now), unknown: bv.Unknown, rows: len(bv.Doc.Sessions), ids: idsHash(bv.Doc.Sessions)}
	if h.rendered && key == h.key {
		return false
	}
	if lk := [2]uint64{led.Version(), key.ledger}; !h.ledgerDrawn || lk != h.ledgerKey {
		h.ledgerKey, h.ledgerDrawn = lk, true
		h.publish(templates.PageLedger, templates.LedgerLive(bv.Ledger))
	}
	h.key, h.rendered = key, true
	h.renders.Add(1)
	h.publish(templates.PageBoard, templates.Board(bv))
	// The pane draws only its view: a change of the rows alone (the most
	// common change) leaves it as it was, and rendering it to find that
	// out was a third of a change's render.
	pk := newPaneKey(in, pv)
	if !h.paneDrawn || pk != h.pane || !slices.Equal(pv.Machines, h.paneMachines) || !slices.Equal(pv.Devices, h.paneDevices) {
		h.pane, h.paneMachines, h.paneDevices, h.paneDrawn = pk, pv.Machines, pv.Devices, true
		h.publish(templates.PagePane, templates.Pane(pv))
	}
	return true
}

// earliest is the earlier of two instants, zero being never.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// projectOf names a session's project as the board's rows say.
func projectOf(doc state.Document) func(string) string {
	return func(id string) string {
		for _, r := range doc.Sessions {
			if r.ID == id {
				return r.Project
			}
		}
		return ""
	}
}

// machineName is this machine's name on a hub, or "this machine".
func (h *Hub) machineName() string {
	if n, ok := h.Mesh.(interface{ Name() string }); ok && n.Name() != "" {
		return n.Name()
	}
	return "this machine"
}

// publish renders a page and publishes it.
func (h *Hub) publish(page string, comp templ.Component) {
	// The buffer starts at the last render's size: a board grown from
	// nothing a doubling at a time was a fifth of a change's render.
	var b bytes.Buffer
	b.Grow(h.sizes[page] + h.sizes[page]/8)
	err := comp.Render(context.Background(), &b)
	html := b.Bytes()
	if h.sizes == nil {
		h.sizes = map[string]int{}
	}
	h.sizes[page] = len(html)
	if err != nil {
		h.log.Error("rendering a page", logx.Err("RenderError", err), slog.Group("data", "page", page))
		return
	}
	h.Publish(page, html)
}

// paneKey is everything templates.Pane draws (PaneView) but the machines
// and the devices, compared apart: equal keys, equal panes. A field added to PaneView
// belongs here.
type paneKey struct {
	settings    uint64 // the settings' version (the view is theirs)
	devices     uint64 // the paired devices' version (the list is theirs)
	summary     state.Summary
	unknownRows int
	unknown     bool
	window      windowKey
	pushes      uint64 // the push channels' version (the list is theirs)
	link        string // the board's status line: the hooks' banners change with it
}

func newPaneKey(in inputs, pv templates.PaneView) paneKey {
	w := pv.Window
	return paneKey{settings: in.settings, devices: in.devices, summary: pv.Summary, unknownRows: pv.UnknownRows, unknown: pv.Unknown,
		window: windowKey{w.State, w.Since.UnixMilli(), w.Next.UnixMilli(), w.Crashed, w.LastExit}, pushes: in.pushes, link: in.link}
}

// idsHash is FNV-1a over the rows' ids, in order.
func idsHash(ss []state.Session) uint64 {
	h := fnv.New64a()
	for _, s := range ss {
		_, _ = io.WriteString(h, s.ID)
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}

// renderHTML renders a component once.
func renderHTML(comp templ.Component) ([]byte, error) {
	var b bytes.Buffer
	if err := comp.Render(context.Background(), &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
