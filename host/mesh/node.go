package mesh

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/notify"
	"github.com/notch-web/notch-web/internal/pace"
	"github.com/notch-web/notch-web/state"

	"github.com/notch-web/notch-web/internal/logx"
)

// Presence timing: a machine renews its presence key every Beat; the key
// lives PresenceTTL, so a machine that goes quiet is unknown on the hub
// within PresenceTTL of its last beat (issue 21: ≤ 10 s).
const (
	DefaultPresenceTTL = 5 * time.Second
	DefaultBeat        = 1500 * time.Millisecond
	// boardPace spaces a machine's board publishes in a burst of hooks.
	boardPace = 20 * time.Millisecond
	// reconnectWait is how soon a machine dials again after losing the hub.
	reconnectWait = 250 * time.Millisecond
	// storePace spaces a machine's writes of its board to the KV bucket;
	// the live board goes out on every change (boardSubject).
	storePace = 250 * time.Millisecond
)

// Config says which part this notch-web plays. With none of Hub, Join and
// NATS set, Open is never called (nothing of the mesh runs).
type Config struct {
	DSHHome string
	Name    string // this machine's name (subject token)
	// Hub embeds the NATS server and shows every machine's rows.
	Hub             bool
	HubAddr         string // default DefaultHubAddr
	TLSCert, TLSKey string // the hub's own certificate; "" makes a self-signed one
	Join            bool   // dial the hub this DSH home has joined
	NATS, NATSCreds string // an existing NATS deployment: publish and show every machine
	ManualPath      string // a machine writes the hub's close-outs here
	PresenceTTL     time.Duration
	Beat            time.Duration
	FeedBatch       int // the events a hub asks a machine for at once (DefaultFeedBatch)
	Log             *slog.Logger
}

// Board is what a machine publishes: *host.Board.
type Board interface {
	Snapshot(now time.Time) (state.Document, bool)
	Cards() host.CardSet
	Subscribe() (<-chan struct{}, func())
	Retire(ids ...string)
}

// Node is this notch-web's part in the mesh. Open it, pass Remote to the
// host, Run it with the host's board.
type Node struct {
	// led is this machine's ledger: other machines' readings go in it
	// (ledger.go).
	led    ledgerLink
	cfg    Config
	log    *slog.Logger
	hub    *hub
	nc     *nats.Conn
	remote *remote
	kvB    jetstream.KeyValue
	kvP    jetstream.KeyValue
	stop   context.CancelFunc
	wg     sync.WaitGroup
	name   string

	publish   bool          // this machine publishes its own board
	reconnect chan struct{} // a (re)connection: publish everything again
	joined    bool          // this machine dials the hub it joined (--join)
	creds     Creds         // what it dials with (--join)

	linkMu   sync.Mutex
	link     string // why this joined machine is not connected to its hub ("": it is)
	linkSaid bool   // the log has said link
	// linkChanges wakes the board's pages when link changes (SubscribeLink).
	linkChanges notify.Broadcast

	boardMu   sync.Mutex
	board     Board    // set by Run
	answer    Answerer // set by SetAnswerer
	steer     Steerer  // set by SetSteerer
	changer   Changer  // set by SetChanger
	launcher  Launcher // set by SetLauncher
	hist      History  // set by SetHistory
	closeOnce sync.Once

	feed     *feed // the hub's pulling of the machines' histories
	histSaid int64 // Run's: how far this machine last said its history goes
}

// Open starts this machine's part: the embedded hub, or the connection to
// the hub it joined, or to an existing NATS. A viewer (hub or --nats) has
// every machine's latest board loaded when Open returns.
func Open(ctx context.Context, cfg Config) (*Node, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.PresenceTTL <= 0 {
		cfg.PresenceTTL = DefaultPresenceTTL
	}
	if cfg.Beat <= 0 {
		cfg.Beat = DefaultBeat
	}
	if cfg.HubAddr == "" {
		cfg.HubAddr = DefaultHubAddr
	}
	n := &Node{cfg: cfg, log: cfg.Log, name: cfg.Name, reconnect: make(chan struct{}, 1)}
	dir := Dir(cfg.DSHHome)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var err error
	viewer := false
	switch {
	case cfg.Hub:
		n.hub, err = startHub(dir, cfg.Name, cfg.HubAddr, cfg.TLSCert, cfg.TLSKey, cfg.Log)
		if err != nil {
			return nil, err
		}
		n.feed = newFeed(cfg.FeedBatch)
		n.nc, err = n.hub.connect()
		if err == nil {
			err = n.hub.servePairing(n.nc)
		}
		viewer = true
	case cfg.Join:
		var cr Creds
		if cr, err = LoadCreds(cfg.DSHHome); err != nil {
			return nil, err
		}
		n.name, n.creds = cr.Machine, cr
		n.publish, n.joined = true, true
		n.nc, err = n.dialHub(cr)
	case cfg.NATS != "":
		// An existing deployment's credentials may be renewed in place:
		// it is dialled again whatever it says.
		opts := append(n.clientOpts(), nats.IgnoreAuthErrorAbort())
		if cfg.NATSCreds != "" {
			opts = append(opts, nats.UserCredentials(cfg.NATSCreds))
		}
		n.nc, err = nats.Connect(cfg.NATS, opts...)
		if err != nil {
			err = fmt.Errorf("--nats %s: %w", cfg.NATS, err)
		}
		n.publish, viewer = true, true
	default:
		return nil, errors.New("mesh: neither --hub, --join nor --nats")
	}
	if err != nil {
		n.Close()
		return nil, err
	}
	if n.publish {
		if _, err := n.nc.Subscribe(finishSubject(n.name), guard(n.log, n.onFinish)); err != nil {
			n.Close()
			return nil, err
		}
		if _, err := n.nc.Subscribe(approveSubject(n.name), guard(n.log, n.onApprove)); err != nil {
			n.Close()
			return nil, err
		}
		if _, err := n.nc.Subscribe(steerSubject(n.name), guard(n.log, n.onSteer)); err != nil {
			n.Close()
			return nil, err
		}
		if _, err := n.nc.Subscribe(changesSubject(n.name), guard(n.log, n.onChanges)); err != nil {
			n.Close()
			return nil, err
		}
		if _, err := n.nc.Subscribe(launchSubject(n.name), guard(n.log, n.onLaunch)); err != nil {
			n.Close()
			return nil, err
		}
	}
	if viewer {
		if err := n.openViewer(ctx); err != nil {
			n.Close()
			return nil, err
		}
	}
	if n.hub != nil {
		n.hub.markReady()
	}
	return n, nil
}

// clientOpts are a dialling machine's: reconnect for ever and soon, drop
// what cannot be sent while away (the latest state goes on reconnect), and
// say why it is not connected — in the log once, at once, and on its own
// board (HubLink). A hub that refuses the machine's key twice in a row ends
// the dialling (nats.go's own rule; --nats opts out): see dialHub.
func (n *Node) clientOpts() []nats.Option {
	return []nats.Option{
		nats.Name("notch-web " + n.name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(reconnectWait),
		nats.ReconnectJitter(100*time.Millisecond, 100*time.Millisecond),
		nats.ReconnectBufSize(-1),
		nats.RetryOnFailedConnect(true),
		nats.ConnectHandler(func(*nats.Conn) { n.setLink("", nil); n.kick() }),
		nats.ReconnectHandler(func(*nats.Conn) { n.setLink("", nil); n.kick() }),
		// A connection lost is said once the next dial fails too: the hub
		// restarting is back before, and a revoked machine is refused then
		// (one line: revoked).
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				n.linkMu.Lock()
				n.link, n.linkSaid = linkLost, false
				n.linkMu.Unlock()
			}
		}),
		nats.ReconnectErrHandler(func(_ *nats.Conn, err error) { n.setLink(linkOf(err), err) }),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrAuthorization) {
				if n.joined {
					n.setLink(linkRevoked, err)
					return
				}
				n.log.Warn("hub said no", "log_type", logx.TypeMesh, slog.Group("error", "name", "HubError", "message",
					"the NATS server refuses these credentials: "+err.Error()))
				return
			}
			n.log.Warn("hub said no", "log_type", logx.TypeMesh, slog.Group("error", "name", "HubError", "message", err.Error()))
		}),
	}
}

// Why a joined machine is not connected to its hub, as its board says it.
const (
	linkLost    = "not connected to the hub: dialling again"
	linkRevoked = "not connected to the hub: revoked"
	linkPin     = "not connected to the hub: certificate does not match"
)

// linkOf names a failed dial.
func linkOf(err error) string {
	switch {
	case errors.Is(err, nats.ErrAuthorization):
		return linkRevoked
	case errors.Is(err, ErrPin) || err != nil && strings.Contains(err.Error(), ErrPin.Error()):
		return linkPin
	}
	return linkLost
}

// setLink records why this machine is not connected to its hub ("": it
// is) and says so in the log once per change: at once, not after a
// timeout.
func (n *Node) setLink(link string, err error) {
	n.linkMu.Lock()
	was, said := n.link, n.linkSaid
	n.link, n.linkSaid = link, true
	n.linkMu.Unlock()
	if link == was && said || !n.joined {
		return
	}
	n.linkChanges.Notify()
	cr := n.creds
	switch link {
	case "":
		if was != "" && said {
			n.log.Info("hub reached again", "log_type", logx.TypeMesh)
		}
	case linkRevoked:
		n.log.Error(link, "log_type", logx.TypeMesh, slog.Group("error", "name", "HubRefused", "message", refusal(cr).Error()))
	case linkPin:
		n.log.Error(link, "log_type", logx.TypeMesh, slog.Group("error", "name", "HubPin", "message",
			fmt.Sprintf("the hub at %s presented another certificate than this machine paired with (a new hub certificate, or not the hub): not sending; to pair again, run notch-web pair on the hub, then notch-web --join CODE here", cr.Hub)))
	default:
		msg := "no answer"
		if err != nil {
			msg = err.Error()
		}
		n.log.Warn(link, "log_type", logx.TypeMesh, slog.Group("error", "name", "HubLost", "message", msg))
	}
}

// HubLink says why this joined machine is not connected to its hub — "not
// connected to the hub: revoked", "…: certificate does not match", "…:
// dialling again" — or "" when it is (and on a hub, or under --nats).
func (n *Node) HubLink() string {
	if !n.joined {
		return ""
	}
	n.linkMu.Lock()
	defer n.linkMu.Unlock()
	return n.link
}

// SubscribeLink returns a channel woken after every change of HubLink,
// and a function that ends the subscription.
func (n *Node) SubscribeLink() (<-chan struct{}, func()) { return n.linkChanges.Subscribe() }

// dialHub connects to the joined hub: TLS pinned, the machine's nkey. A
// hub that refuses the key (revoked) ends the dialling — trying again
// cannot help — and the machine goes on showing its own board, which says
// so (HubLink).
func (n *Node) dialHub(cr Creds) (*nats.Conn, error) {
	kp, err := nkeys.FromSeed([]byte(cr.Seed))
	if err != nil {
		return nil, fmt.Errorf("join.json's seed: %w", err)
	}
	pub, _ := kp.PublicKey()
	opts := append(n.clientOpts(), nats.Secure(pinnedTLS(cr.Fingerprint)), nats.Nkey(pub, kp.Sign),
		nats.ClosedHandler(func(nc *nats.Conn) {
			if errors.Is(nc.LastError(), nats.ErrAuthorization) {
				n.setLink(linkRevoked, nc.LastError())
			}
		}))
	nc, err := nats.Connect("tls://"+cr.Hub, opts...)
	if err != nil {
		return nil, dialError(cr.Hub, err)
	}
	return nc, nil
}

// ErrRefused: the hub refuses this machine's key (it was revoked, or the
// hub no longer knows it); dialling again cannot help.
var ErrRefused = errors.New("the hub refuses this machine")

// refusal is what the log says of a refused machine.
func refusal(cr Creds) error {
	return fmt.Errorf("%w (%q, at %s): it was revoked, or the hub no longer knows it; this machine shows its own board only; to come back, run notch-web pair on the hub, then notch-web --join CODE here",
		ErrRefused, cr.Machine, cr.Hub)
}

func (n *Node) kick() {
	select {
	case n.reconnect <- struct{}{}:
	default:
	}
}

// openViewer creates the buckets (when missing) and loads every machine's
// latest board and presence before returning. On the hub it also takes
// the machines' beats and stores their boards: no machine writes a bucket
// itself (machinePerms).
func (n *Node) openViewer(ctx context.Context) error {
	js, err := jetstream.New(n.nc)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if n.kvB, err = boardsKV(cctx, js); err != nil {
		return fmt.Errorf("the boards bucket: %w", err)
	}
	n.kvP, err = js.CreateOrUpdateKeyValue(cctx, jetstream.KeyValueConfig{
		Bucket: presenceBucket, Description: "notch-web: machines present (keys expire)", History: 1,
		Storage: jetstream.FileStorage, LimitMarkerTTL: time.Minute,
	})
	if err != nil {
		return fmt.Errorf("the presence bucket: %w", err)
	}
	self := n.name
	if n.hub != nil {
		self = n.hub.name
	}
	n.remote = newRemote(self)
	n.remote.sendFin = n.sendFinish
	n.remote.sendAns = n.sendAnswer
	n.remote.sendSteer = n.sendSteer
	n.remote.sendChanges = n.sendChanges
	n.remote.sendLaunch, n.remote.sendLaunchOpts = n.sendLaunch, n.sendLaunchOptions
	if n.hub != nil {
		n.remote.known = n.hub.known
		n.remote.allowed = n.hub.active
		n.remote.store = n.storeBoard
		n.hub.onChange = func() { n.remote.mu.Lock(); c := n.remote.changed; n.remote.mu.Unlock(); c() }
	}
	wctx, stop := context.WithCancel(context.Background())
	n.stop = stop
	ready := make(chan struct{})
	// The live boards, subscribed before the stored ones load so nothing
	// falls between; a stored board never replaces a live one.
	// One subscription for all a machine publishes: its messages are taken
	// in the order it sent them.
	if _, err := n.nc.Subscribe(machineSubject("*", pubSpace+"*"), guard(n.log, func(m *nats.Msg) {
		name, what := published(m.Subject)
		switch {
		case name == "":
		case what == "board":
			n.remote.setBoard(name, m.Data, true)
		case what == "cards":
			n.remote.setCards(name, m.Data)
		case what == "ledger":
			n.onLedger(name, m.Data)
		case what == "gone":
			n.remote.setPresence(name, false, time.Now())
			if n.hub != nil {
				n.present(name, false)
			}
		case what == "beat" && n.hub != nil:
			n.present(name, true)
		case what == "hist" && n.hub != nil:
			n.onHistSays(name, m.Data)
		}
	})); err != nil {
		stop()
		return err
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		defer logx.Guard(n.log)() // the machines' entries are outside input
		if err := n.remote.watch(wctx, n.kvB, n.kvP, ready); err != nil {
			n.log.Error("watching the machines stopped", "log_type", logx.TypeMesh, slog.Group("error", "name", "WatchError", "message", err.Error()))
		}
	}()
	if n.hub != nil {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			defer logx.Guard(n.log)()
			t := time.NewTicker(storePace)
			defer t.Stop()
			for {
				select {
				case <-wctx.Done():
					return
				case now := <-t.C:
					n.remote.flushStores(now)
				}
			}
		}()
	}
	select {
	case <-ready:
		return nil
	case <-cctx.Done():
		return errors.New("the machines' boards did not load within 10 s")
	}
}

// boardsKV is the boards bucket, made (or brought up to date) as a KV
// stream that refuses roll-ups: a Nats-Rollup header on any key is
// refused by the server, so no write to one key can purge the others
// (the hub deletes a key with a delete marker, which reaches that key
// only). Otherwise it is the stream nats.go's KV would make.
func boardsKV(ctx context.Context, js jetstream.JetStream) (jetstream.KeyValue, error) {
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:              "KV_" + boardsBucket,
		Description:       "notch-web: each machine's latest board",
		Subjects:          []string{"$KV." + boardsBucket + ".>"},
		MaxMsgsPerSubject: 1,
		MaxBytes:          -1,
		MaxMsgSize:        maxBoard,
		MaxMsgs:           -1,
		MaxConsumers:      -1,
		Storage:           jetstream.FileStorage,
		Replicas:          1,
		AllowRollup:       false,
		DenyDelete:        true,
		Duplicates:        2 * time.Minute,
		AllowDirect:       true,
		Discard:           jetstream.DiscardNew,
	})
	if err != nil {
		return nil, err
	}
	return js.KeyValue(ctx, boardsBucket)
}

// present is the hub's side of a machine's beat (or its goodbye): the
// machine's presence key, written by the hub with the hub's TTL — the
// machine writes no key itself. A name not paired now gets none.
func (n *Node) present(name string, on bool) {
	if !n.hub.active(name) {
		return
	}
	m := nats.NewMsg("$KV." + presenceBucket + "." + name)
	if on {
		m.Header.Set(jetstream.MsgTTLHeader, strconv.Itoa(int(n.cfg.PresenceTTL/time.Second))+"s")
		m.Data = encodePresence(time.Now())
	} else {
		m.Header.Set("KV-Operation", "DEL")
	}
	_ = n.nc.PublishMsg(m)
}

// storeBoard is the hub keeping a machine's board, as it took it, for its
// next start.
func (n *Node) storeBoard(name string, data []byte) {
	_ = n.nc.Publish("$KV."+boardsBucket+"."+name, data)
}

// Remote is the other machines' rows for the host's board, or nil when this
// notch-web shows only its own (a joined machine).
func (n *Node) Remote() host.Remote {
	if n.remote == nil {
		return nil
	}
	return n.remote
}

// Name is this machine's name in the mesh.
func (n *Node) Name() string { return n.name }

// Port is the hub's listener's port (0 when this is not the hub).
func (n *Node) Port() int {
	if n.hub == nil {
		return 0
	}
	return n.hub.Port()
}

// Machines lists the other machines: paired ones (on the hub) and every one
// with a board or a presence, by name.
func (n *Node) Machines() []Machine {
	if n.remote == nil {
		return nil
	}
	var paired []Paired
	if n.hub != nil {
		paired = n.hub.paired()
	}
	return n.remote.list(paired)
}

// Revoke unpairs a machine on the hub: its nkey is refused from now on,
// every connection of it ends at once, boards under its name are refused,
// and its board and presence are deleted — and stay so after a restart
// (machines.json says revoked; a board left in the store is not taken).
func (n *Node) Revoke(name string) error {
	if n.hub == nil {
		return errors.New("only the hub revokes machines")
	}
	if err := n.hub.revoke(name, time.Now()); err != nil {
		return err
	}
	n.remote.forget(name)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = n.kvB.Delete(ctx, name)
	_ = n.kvP.Delete(ctx, name)
	return nil
}

// sendFinish asks a machine to close out its sessions (the hub's ✕).
func (n *Node) sendFinish(machine string, ids []string) {
	body, _ := json.Marshal(finishRequest{IDs: ids})
	go func() {
		defer logx.Guard(n.log)()
		if _, err := n.nc.Request(finishSubject(machine), body, 2*time.Second); err != nil {
			n.log.Warn("close-out not delivered to its machine", "log_type", logx.TypeMesh,
				slog.Group("data", "machine", machine), slog.Group("error", "name", "FinishError", "message", err.Error()))
		}
	}()
}

type finishRequest struct {
	IDs []string `json:"ids"`
}

func (n *Node) onFinish(m *nats.Msg) {
	var req finishRequest
	if len(m.Data) > 64<<10 || json.Unmarshal(m.Data, &req) != nil || len(req.IDs) > state.MaxSessions {
		return
	}
	n.boardMu.Lock()
	b := n.board
	n.boardMu.Unlock()
	if b == nil {
		return
	}
	now := time.Now().UnixMilli()
	for _, id := range req.IDs {
		if n.cfg.ManualPath != "" {
			_ = state.MergeMark(n.cfg.ManualPath, id, state.Mark{State: state.MarkFinished, At: now})
		}
	}
	b.Retire(req.IDs...)
	_ = m.Respond([]byte(`{"ok":true}`))
}

// Run publishes this machine's board and presence (when it publishes) until
// ctx ends, then closes everything it opened. A joined machine the hub
// refuses (revoked) stops dialling and goes on until ctx ends, its own
// board saying why (HubLink).
func (n *Node) Run(ctx context.Context, b Board) error {
	defer n.Close()
	lb, hasLedger := b.(ledgerBoard)
	if hasLedger {
		n.led.set(lb.Ledger())
	}
	if !n.publish {
		if n.feed != nil && n.history() != nil {
			n.runFeed(ctx) // the hub takes the machines' histories
		} else {
			<-ctx.Done()
		}
		return nil
	}
	n.boardMu.Lock()
	n.board = b
	n.boardMu.Unlock()
	changes, stop := b.Subscribe()
	defer stop()
	beat := time.NewTicker(n.cfg.Beat)
	defer beat.Stop()
	p := pace.Pace{Gap: boardPace}
	var last, stored []byte // the rows last sent live, and last stored
	var lastCards []byte    // the cards last sent
	var latest []byte       // the board last sent live
	var lastLedger []byte   // the ledger readings last sent
	var storedAt time.Time
	// store keeps the latest board in the KV bucket, at most every
	// storePace, under --nats: a viewer reads it when it starts. A joined
	// machine's hub stores what it takes itself (no machine writes its
	// buckets), and the machine sends its board again on reconnect.
	store := func(force bool) {
		if n.joined || latest == nil || (!force && (bytes.Equal(last, stored) || time.Since(storedAt) < storePace)) {
			return
		}
		if n.nc.Publish("$KV."+boardsBucket+"."+n.name, latest) == nil {
			stored, storedAt = last, time.Now()
		}
	}
	send := func(force bool) {
		doc, ok := b.Snapshot(time.Now())
		if !ok {
			return
		}
		// The cards go first: a row that asks arrives with its card.
		if cards := encodeCards(b.Cards(), doc); force || !bytes.Equal(cards, lastCards) {
			if n.nc.Publish(cardsSubject(n.name), cards) == nil {
				lastCards = cards
			}
		}
		if hasLedger {
			if msg, key := encodeLedger(lb.Ledger(), time.Now()); force || !bytes.Equal(key, lastLedger) {
				if n.nc.Publish(ledgerSubject(n.name), msg) == nil {
					lastLedger = key
				}
			}
		}
		rows, _ := json.Marshal(doc.Sessions)
		if !force && bytes.Equal(rows, last) {
			return
		}
		data, err := state.Encode(doc)
		if err != nil {
			return
		}
		if n.nc.Publish(boardSubject(n.name), data) == nil {
			last, latest = rows, data
			p.Mark(time.Now())
		}
		store(force)
	}
	flush := time.NewTicker(storePace)
	defer flush.Stop()
	ttl := strconv.Itoa(int(n.cfg.PresenceTTL/time.Second)) + "s"
	// A joined machine beats on its own subject, and the hub writes its
	// presence key; under --nats it writes the key itself.
	present := func() {
		m := nats.NewMsg(beatSubject(n.name))
		if !n.joined {
			m = nats.NewMsg("$KV." + presenceBucket + "." + n.name)
			m.Header.Set(jetstream.MsgTTLHeader, ttl)
		}
		m.Data = encodePresence(time.Now())
		_ = n.nc.PublishMsg(m)
	}
	// A machine that stops says so: the hub shows its rows as unknown at
	// once rather than when the key would expire — whichever wait the stop
	// came in.
	gone := func() error {
		ok := n.nc.Publish(goneSubject(n.name), nil) == nil
		if !n.joined {
			m := nats.NewMsg("$KV." + presenceBucket + "." + n.name)
			m.Header.Set("KV-Operation", "DEL")
			ok = n.nc.PublishMsg(m) == nil && ok
		}
		if ok {
			_ = n.nc.FlushTimeout(500 * time.Millisecond)
		}
		return nil
	}
	// A joined machine with a history says how far it goes after each
	// write, and again on every beat and reconnect: a word lost while the
	// link was down is said again (feed.go).
	var histChanges <-chan struct{}
	if h := n.history(); h != nil && n.joined {
		ch, stop := h.Changes()
		defer stop()
		histChanges = ch
	}
	send(true)
	present()
	n.sayHistory(true)
	for {
		select {
		case <-ctx.Done():
			return gone()
		case <-n.reconnect:
			send(true)
			present()
			n.sayHistory(true)
		case <-histChanges:
			n.sayHistory(false)
		case <-beat.C:
			present()
			send(false)
			n.sayHistory(true)
		case <-flush.C:
			store(false)
		case <-changes:
			if !p.Wait(ctx) {
				return gone()
			}
			send(false)
		}
	}
}

// Close ends the connection and, on the hub, the server.
func (n *Node) Close() { n.closeOnce.Do(n.close) }

func (n *Node) close() {
	if n.stop != nil {
		n.stop()
	}
	if n.nc != nil {
		n.nc.Close()
	}
	n.wg.Wait()
	if n.hub != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n.hub.shutdown(ctx)
	}
}

// MachineBoard is a machine's latest board as this viewer holds it (its own
// ids, before the board's cap and labels), for a check of every row: the
// board shows at most state.MaxSessions of all machines'.
func (n *Node) MachineBoard(name string) (state.Document, bool) {
	if n.remote == nil {
		return state.Document{}, false
	}
	n.remote.mu.Lock()
	defer n.remote.mu.Unlock()
	m := n.remote.machines[name]
	if m == nil || m.doc == nil {
		return state.Document{}, false
	}
	d := *m.doc
	d.Sessions = slices.Clone(d.Sessions)
	return d, true
}
