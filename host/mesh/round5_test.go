//go:build notch_hub

package mesh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/syncbuf"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// Issue 31's round 5, items 1–7: a test per root cause.

// reopenHub starts the hub again in the DSH home of a closed one.
func reopenHub(tb testing.TB, home string) *Node {
	tb.Helper()
	n, err := Open(context.Background(), Config{DSHHome: home, Name: "hub", Hub: true, HubAddr: "127.0.0.1:0"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(n.Close)
	return n
}

// hubAddr is where the hub's listener is.
func hubAddr(n *Node) string { return fmt.Sprintf("127.0.0.1:%d", n.Port()) }

// boardOf is a schema-4 board of one row, titled, at wall.
func boardOf(t *testing.T, id, title string, wall time.Time) []byte {
	t.Helper()
	return mustEncode(t, state.Document{Schema: 4, Plugin: state.Plugin, WallMs: wall.UnixMilli(),
		Sessions: []state.Session{{ID: id, Title: title, Project: "argon", Status: state.StatusWorking}}})
}

// TestHubNamesAreReserved (item 1): no machine may pair under a name the
// hub uses itself — its own, the pairing service's, its users'.
func TestHubNamesAreReserved(t *testing.T) {
	hub := testHub(t)
	for _, name := range []string{"pair", "hub", "notch-hub", "notch-pair"} {
		c, err := NewCode(hub.cfg.DSHHome, hubAddr(hub), CodeTTL, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		_, err = Join(context.Background(), t.TempDir(), c.String(), name, time.Now())
		if !errors.Is(err, ErrJoin) || !strings.Contains(err.Error(), "the hub uses") {
			t.Errorf("joining as %q: %v, want refused as a name the hub uses", name, err)
		}
	}
}

// TestPairChecksTheSecret (item 1): the pairing request itself must carry
// the code's secret — knowing a code's id (overheard) pairs nothing.
func TestPairChecksTheSecret(t *testing.T) {
	hub := testHub(t)
	c, err := NewCode(hub.cfg.DSHHome, hubAddr(hub), CodeTTL, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	kp, _ := nkeys.CreateUser()
	pub, _ := kp.PublicKey()
	for _, body := range []string{
		`{"name":"eve","nkey":"` + pub + `"}`,
		`{"name":"eve","nkey":"` + pub + `","secret":"` + strings.Repeat("A", len(c.Secret)) + `"}`,
	} {
		if rep := hub.hub.pair(c.ID, []byte(body), time.Now()); rep.OK {
			t.Errorf("paired without the code's secret: %s", body)
		}
	}
	if hub.hub.known("eve") {
		t.Error("eve was paired from the code's id alone")
	}
}

// TestUsedCodeLogsInAsNothing (item 7): a used or expired join code's
// secret does not log in at all.
func TestUsedCodeLogsInAsNothing(t *testing.T) {
	hub := testHub(t)
	used, err := NewCode(hub.cfg.DSHHome, hubAddr(hub), CodeTTL, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Join(context.Background(), t.TempDir(), used.String(), "alpha", time.Now()); err != nil {
		t.Fatal(err)
	}
	expired, err := NewCode(hub.cfg.DSHHome, hubAddr(hub), time.Second, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for what, c := range map[string]Code{"used": used, "expired": expired} {
		nc, err := nats.Connect("tls://"+c.Addr, nats.Secure(pinnedTLS(c.Fingerprint)), nats.UserInfo(pairUser, c.ID+"."+c.Secret),
			nats.CustomInboxPrefix(pairInbox(c.ID)), nats.NoReconnect(), nats.Timeout(5*time.Second))
		if err == nil {
			nc.Close()
			t.Errorf("a %s join code logs in", what)
		}
	}
}

// dialMany opens n connections with a machine's key, no redial.
func dialMany(t *testing.T, hub *Node, opts []nats.Option, n int) []*nats.Conn {
	t.Helper()
	var ncs []*nats.Conn
	for range n {
		nc, err := nats.Connect("tls://"+hubAddr(hub), append(opts, nats.NoReconnect(), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		ncs = append(ncs, nc)
	}
	return ncs
}

// TestRevokeIsTotal (item 2): every connection of the key ends, the key is
// refused, boards under its name are refused — at once and after the
// hub's restart, even with its board still in the store.
func TestRevokeIsTotal(t *testing.T) {
	hub := testHub(t)
	_, opts := pairRaw(t, hub, "alpha")
	ncs := dialMany(t, hub, opts, 12)
	if err := hub.Revoke("alpha"); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "all 12 of alpha's connections closed", func() bool {
		for _, nc := range ncs {
			if !nc.IsClosed() {
				return false
			}
		}
		return true
	})
	if nc, err := nats.Connect("tls://"+hubAddr(hub), append(opts, nats.NoReconnect())...); err == nil {
		nc.Close()
		t.Error("a revoked key connects")
	}
	// A board under the revoked name (one in flight) is not taken.
	board := boardOf(t, "s1", "after revoke", time.Now())
	_ = hub.nc.Publish(boardSubject("alpha"), board)
	_ = hub.nc.Publish(cardsSubject("alpha"), []byte(`{"cards":[]}`))
	_ = hub.nc.Publish(beatSubject("alpha"), encodePresence(time.Now()))
	_ = hub.nc.Flush()
	time.Sleep(100 * time.Millisecond)
	if _, ok := hub.MachineBoard("alpha"); ok {
		t.Error("the hub took a board under a revoked name")
	}
	if ms := hub.Machines(); len(ms) != 0 {
		t.Errorf("the hub lists %+v after alpha's revocation, want none", ms)
	}
	// Its board back in the store (a purge lost to a crash): a restarted
	// hub does not show it.
	if _, err := hub.kvB.Put(context.Background(), "alpha", board); err != nil {
		t.Fatal(err)
	}
	home := hub.cfg.DSHHome
	hub.Close()
	again := reopenHub(t, home)
	if _, ok := again.MachineBoard("alpha"); ok {
		t.Error("a restarted hub shows a revoked machine's stored board")
	}
	for _, m := range again.Machines() {
		if m.Name == "alpha" {
			t.Errorf("a restarted hub lists the revoked machine: %+v", m)
		}
	}
}

// TestNoMachineEmptiesTheStore (item 3): a rollup header on a machine's
// own key does not reach the others' stored boards.
func TestNoMachineEmptiesTheStore(t *testing.T) {
	hub := testHub(t)
	b, _ := testMachine(t, hub, "beta")
	if _, err := b.Ingest([]state.Event{{Type: state.TypeSessionOpened, Session: "s1", Cwd: "/src/argon"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "beta's board in the store", func() bool {
		e, err := hub.kvB.Get(context.Background(), "beta")
		return err == nil && bytes.Contains(e.Value(), []byte(`"s1"`))
	})
	cr, opts := pairRaw(t, hub, "mallory")
	nc := dialMany(t, hub, opts, 1)[0]
	for _, subject := range []string{"$KV." + boardsBucket + "." + cr.Machine, "$KV." + presenceBucket + "." + cr.Machine} {
		m := nats.NewMsg(subject)
		m.Header.Set("Nats-Rollup", "all")
		m.Data = boardOf(t, "x", "x", time.Now())
		_ = nc.PublishMsg(m)
	}
	_ = nc.Flush()
	time.Sleep(200 * time.Millisecond)
	if _, err := hub.kvB.Get(context.Background(), "beta"); err != nil {
		t.Errorf("beta's stored board after mallory's rollup: %v", err)
	}
}

// TestClockAheadDoesNotFreeze (item 4): a board stamped ahead of the
// hub's clock does not hold back the machine's later boards, and the
// board says the machine's clock is off.
func TestClockAheadDoesNotFreeze(t *testing.T) {
	hub := testHub(t)
	pairRaw(t, hub, "alpha")
	woke := watchHub(hub)
	_ = hub.nc.Publish(boardSubject("alpha"), boardOf(t, "s1", "first", time.Now().Add(time.Hour)))
	waitfor.Until(t, "the first board", func() bool { s, _ := hubRow(hub, "alpha", "s1"); return s.Title == "first" })
	d := hub.remote.Compose(state.Document{Settings: settings.Defaults}, time.Now())
	if len(d.Sessions) != 1 || !strings.Contains(d.Sessions[0].Project, "clock 1h0m ahead") {
		t.Errorf("a board an hour ahead: rows %+v; want its project to say the clock is 1h0m ahead", d.Sessions)
	}
	<-woke
	_ = hub.nc.Publish(boardSubject("alpha"), boardOf(t, "s1", "second", time.Now()))
	waitfor.Until(t, "the later board taken", func() bool { s, _ := hubRow(hub, "alpha", "s1"); return s.Title == "second" })
	d = hub.remote.Compose(state.Document{Settings: settings.Defaults}, time.Now())
	if len(d.Sessions) != 1 || strings.Contains(d.Sessions[0].Project, "clock") {
		t.Errorf("a board on time: rows %+v; want no clock label", d.Sessions)
	}
}

// runJoined runs a joined machine from creds, logging to the returned
// buffer; Run's result comes on the channel.
func runJoined(t *testing.T, cr Creds) (*Node, *syncbuf.Buffer, <-chan error) {
	t.Helper()
	home := t.TempDir()
	if err := writeJSON(filepath.Join(Dir(home), joinFile), cr); err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	n, err := Open(context.Background(), Config{DSHHome: home, Join: true, Log: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Run(ctx, host.NewBoard(host.BoardConfig{HostPid: 1}, false, svc)) }()
	t.Cleanup(func() { cancel(); <-done })
	return n, logs, done
}

// TestRefusalSaysSoAtOnce (item 5): a machine whose certificate pin does
// not match, or whose key is revoked, logs one clear line at once.
func TestRefusalSaysSoAtOnce(t *testing.T) {
	hub := testHub(t)
	cr, _ := pairRaw(t, hub, "alpha")
	pin := cr
	pin.Fingerprint = strings.Repeat("0", 64)
	n, logs, _ := runJoined(t, pin)
	waitfor.Until(t, "a log line saying the certificate does not match", func() bool {
		return strings.Contains(logs.String(), "not connected to the hub: certificate does not match")
	})
	if got := n.HubLink(); got != linkPin {
		t.Errorf("the board of a machine whose pin does not match says %q, want %q", got, linkPin)
	}
	if err := hub.Revoke("alpha"); err != nil {
		t.Fatal(err)
	}
	n, logs, _ = runJoined(t, cr)
	waitfor.Until(t, "a log line saying the key is revoked", func() bool {
		return strings.Contains(logs.String(), "not connected to the hub: revoked")
	})
	if got := n.HubLink(); got != linkRevoked {
		t.Errorf("the board of a revoked machine says %q, want %q", got, linkRevoked)
	}
}

// TestHubHoldsOnlyRowsThatExist (item 6): an id of a paired machine is a
// row of the hub's board only when that machine's board has it.
func TestHubHoldsOnlyRowsThatExist(t *testing.T) {
	hub := testHub(t)
	hh := hubHost(t, hub)
	b, _ := testMachine(t, hub, "alpha")
	if _, err := b.Ingest([]state.Event{{Type: state.TypeSessionOpened, Session: "s1", Cwd: "/src/argon"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "alpha/s1 on the hub", func() bool { return hh.Board().Has("alpha/s1") })
	for _, id := range []string{"alpha/nosuch", "alpha/s1/sub", "alpha/"} {
		if hh.Board().Has(id) {
			t.Errorf("the hub's board holds %q, which no machine has", id)
		}
		if hh.Board().Report(host.StatuslineReport{Session: id}, time.Now()) {
			t.Errorf("a statusline report for %q was taken", id)
		}
	}
	if !hh.Board().Report(host.StatuslineReport{Session: "alpha/s1"}, time.Now()) {
		t.Error("a statusline report for alpha/s1 was refused")
	}
}

// TestBoardsBucketRefusesRollups (item 3): a hub whose boards bucket was
// made by an earlier version (roll-ups allowed) refuses them after its
// next start.
func TestBoardsBucketRefusesRollups(t *testing.T) {
	hub := testHub(t)
	js, _ := jetstream.New(hub.nc)
	ctx := context.Background()
	st, err := js.Stream(ctx, "KV_"+boardsBucket)
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.CachedInfo().Config
	cfg.AllowRollup = true
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	home := hub.cfg.DSHHome
	hub.Close()
	again := reopenHub(t, home)
	js, _ = jetstream.New(again.nc)
	if st, err = js.Stream(ctx, "KV_"+boardsBucket); err != nil || st.CachedInfo().Config.AllowRollup {
		t.Errorf("the boards bucket after a restart: %v, roll-ups allowed %v", err, err == nil && st.CachedInfo().Config.AllowRollup)
	}
}

func TestParsePairRequest(t *testing.T) {
	kp, _ := nkeys.CreateUser()
	pub, _ := kp.PublicKey()
	secret := strings.Repeat("s", 32)
	tests := []struct {
		name, body string
		ok         bool
	}{
		{"good", `{"name":"alpha","nkey":"` + pub + `","secret":"` + secret + `"}`, true},
		{"no secret", `{"name":"alpha","nkey":"` + pub + `"}`, false},
		{"short secret", `{"name":"alpha","nkey":"` + pub + `","secret":"abc"}`, false},
		{"secret not a token", `{"name":"alpha","nkey":"` + pub + `","secret":"` + strings.Repeat("s", 20) + ` "}`, false},
		{"unknown field", `{"name":"alpha","nkey":"` + pub + `","secret":"` + secret + `","admin":true}`, false},
		{"trailing", `{"name":"alpha","nkey":"` + pub + `","secret":"` + secret + `"}{}`, false},
		{"bad name", `{"name":"Alpha.>","nkey":"` + pub + `","secret":"` + secret + `"}`, false},
		{"seed for a key", `{"name":"alpha","nkey":"SUAM","secret":"` + secret + `"}`, false},
		{"too large", `{"name":"alpha","nkey":"` + pub + `","secret":"` + secret + `","x":"` + strings.Repeat("x", maxPairRequest) + `"}`, false},
	}
	for _, tt := range tests {
		if _, err := parsePairRequest([]byte(tt.body)); (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func FuzzParsePairRequest(f *testing.F) {
	// A good request; one with no secret; a name that is a wildcard.
	f.Add([]byte(`{"name":"alpha","nkey":"UA5HHDKXYSLKG6AHIWO36ZWID7IFDBANTJCHHA6PNXWFHWJVKC6MD4GQ","secret":"ssssssssssssssssssssssssssssssss"}`))
	f.Add([]byte(`{"name":"alpha","nkey":"UA5HHDKXYSLKG6AHIWO36ZWID7IFDBANTJCHHA6PNXWFHWJVKC6MD4GQ"}`))
	f.Add([]byte(`{"name":">","nkey":"","secret":""}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := parsePairRequest(body)
		if err != nil {
			return
		}
		if CheckName(req.Name) != nil || !nkeys.IsValidPublicUserKey(req.Nkey) || !isToken(req.Secret, 16, 64) {
			t.Fatalf("a request let through: %+v", req)
		}
	})
}

func TestSubjectMachine(t *testing.T) {
	tests := []struct{ subject, what, want string }{
		{"notch.m.alpha.board", "board", "alpha"},
		{"notch.m.build-box.beat", "beat", "build-box"},
		{"notch.m.alpha.board", "cards", ""},
		{"notch.alpha.board", "board", ""},
		{"notch.pair.board", "board", ""},
		{"notch.m.a.b.board", "board", ""},
		{"notch.m..board", "board", ""},
		{"notch.m.Alpha.board", "board", ""},
		{"xnotch.m.alpha.board", "board", ""},
	}
	for _, tt := range tests {
		if got := subjectMachine(tt.subject, tt.what); got != tt.want {
			t.Errorf("subjectMachine(%q, %q) = %q, want %q", tt.subject, tt.what, got, tt.want)
		}
	}
}

func TestPublished(t *testing.T) {
	tests := []struct{ subject, machine, what string }{
		{boardSubject("alpha"), "alpha", "board"},
		{goneSubject("build-box"), "build-box", "gone"},
		{"notch.m.alpha.pub.x.board", "", ""},
		{"notch.m.alpha.board", "", ""},
		{finishSubject("alpha"), "", ""},
		{"notch.pair.pub.board", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		if m, w := published(tt.subject); m != tt.machine || w != tt.what {
			t.Errorf("published(%q) = %q, %q; want %q, %q", tt.subject, m, w, tt.machine, tt.what)
		}
	}
}

func FuzzSubjectMachine(f *testing.F) {
	// A machine's board, a name with a dot in it, the pairing service's.
	f.Add("notch.m.alpha.board", "board")
	f.Add("notch.m.a.b.board", "board")
	f.Add("notch.pair.x", "x")
	f.Fuzz(func(t *testing.T, subject, what string) {
		name := subjectMachine(subject, what)
		if name != "" && (CheckName(name) != nil || machineSubject(name, what) != subject) {
			t.Fatalf("subjectMachine(%q, %q) = %q", subject, what, name)
		}
		if m, w := published(subject); m != "" && (CheckName(m) != nil || machineSubject(m, pubSpace+w) != subject || strings.Contains(w, ".")) {
			t.Fatalf("published(%q) = %q, %q", subject, m, w)
		}
	})
}

func TestSkewLabel(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour: " (clock 1h0m ahead)", -90 * time.Second: " (clock 1m behind)", 42 * time.Second: " (clock 42s ahead)",
		-(26*time.Hour + 5*time.Minute): " (clock 26h5m behind)",
	} {
		if got := skewLabel(d); got != want {
			t.Errorf("skewLabel(%v) = %q, want %q", d, got, want)
		}
	}
	if skewOf(maxSkew-time.Millisecond) != 0 || skewOf(-maxSkew+time.Millisecond) != 0 || skewOf(maxSkew) == 0 {
		t.Error("skewOf's bound")
	}
}
