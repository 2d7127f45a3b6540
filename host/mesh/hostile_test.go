//go:build notch_hub

package mesh

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
)

// The hostile machine: the threat model of docs/many-machines.md as code.
// A machine pairs the real way — a join code from the hub, Join, its own
// nkey over TLS pinned to the hub's certificate — and then, as a plain NATS
// client with that key, tries every subject, header and name it should
// not reach. Each must be refused by the hub's server (a permissions
// violation) or by the hub's own checks, and the other machine's board,
// cards and stored board must come through untouched.

// hostile is a paired machine's raw connection and the errors the server
// sends it.
type hostile struct {
	nc   *nats.Conn
	errs chan error
	cr   Creds
}

// joinHostile pairs name with the hub with a real join code and dials the
// hub with its key.
func joinHostile(t *testing.T, hub *Node, name string) *hostile {
	t.Helper()
	c, err := NewCode(hub.cfg.DSHHome, hubAddr(hub), CodeTTL, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cr, err := Join(context.Background(), t.TempDir(), c.String(), name, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	h := &hostile{errs: make(chan error, 64), cr: cr}
	kp, _ := nkeys.FromSeed([]byte(cr.Seed))
	pub, _ := kp.PublicKey()
	h.nc, err = nats.Connect("tls://"+cr.Hub, nats.Secure(pinnedTLS(cr.Fingerprint)), nats.Nkey(pub, kp.Sign), nats.NoReconnect(),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { h.errs <- err }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.nc.Close)
	return h
}

// refused waits for the server's permissions violation naming subject.
func (h *hostile) refused(t *testing.T, what, subject string) {
	t.Helper()
	_ = h.nc.Flush()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case err := <-h.errs:
			if strings.Contains(strings.ToLower(err.Error()), "permissions violation") && strings.Contains(err.Error(), `"`+subject+`"`) {
				return
			}
		case <-deadline:
			t.Errorf("%s %s was not refused", what, subject)
			return
		}
	}
}

func TestHostileMachine(t *testing.T) {
	hub := testHub(t)
	hh := hubHost(t, hub)
	victim, _ := testMachineHost(t, hub, "victim")
	replied := hold(t, victim, "s1", "ls")
	card := hubCard(t, hh, "victim/s1", "waiting")
	waitfor.Until(t, "victim's board in the store", func() bool {
		e, err := hub.kvB.Get(context.Background(), "victim")
		return err == nil && strings.Contains(string(e.Value()), `"s1"`)
	})
	m := joinHostile(t, hub, "mallory")

	t.Run("publishes nothing but its own board, cards, beat and goodbye", func(t *testing.T) {
		for _, subject := range []string{
			// Another machine's subjects, and the hub's requests (its own too).
			boardSubject("victim"), cardsSubject("victim"), beatSubject("victim"), goneSubject("victim"),
			finishSubject("victim"), approveSubject("victim"), finishSubject("mallory"), approveSubject("mallory"),
			// The stores: nobody's key, its own neither (the hub stores).
			"$KV." + boardsBucket + ".mallory", "$KV." + boardsBucket + ".victim",
			"$KV." + presenceBucket + ".mallory", "$KV." + presenceBucket + ".victim",
			// JetStream's API, the system account, the pairing service and
			// its inboxes, the hub's inboxes, the old namespace.
			"$JS.API.INFO", "$JS.API.STREAM.PURGE.KV_" + boardsBucket, "$JS.API.STREAM.DELETE.KV_" + presenceBucket,
			"$SYS.REQ.SERVER.PING", pairSubject + "abcdefghijk", "_pair_abcdefghijk.x", "_INBOX.x",
			"notch.mallory.board", "notch.pair.board", "notch.m.victim.x",
		} {
			_ = m.nc.Publish(subject, []byte(`{}`))
			m.refused(t, "publishing to", subject)
		}
	})

	t.Run("hears nothing but the hub's requests to it", func(t *testing.T) {
		for _, subject := range []string{
			">", "notch.>", "notch.m.>", "notch.m.*.board", "notch.m.*.cards", "notch.m.*.approve",
			cardsSubject("victim"), approveSubject("victim"), finishSubject("victim"), boardSubject("victim"),
			boardSubject("mallory"), pairSubject + ">", pairSubject + "*", "_pair_*.>", "_INBOX.>",
			"$KV.>", "$JS.>", "$SYS.>",
		} {
			if _, err := m.nc.Subscribe(subject, func(*nats.Msg) {}); err != nil {
				t.Fatal(err)
			}
			m.refused(t, "subscribing to", subject)
		}
	})

	t.Run("no header reaches another key", func(t *testing.T) {
		for _, h := range []struct{ k, v string }{
			{"Nats-Rollup", "all"}, {"Nats-Rollup", "sub"}, {"KV-Operation", "PURGE"}, {"Nats-TTL", "1s"},
			{"Nats-Expected-Stream", "KV_" + boardsBucket}, {"Nats-Msg-Id", "x"},
		} {
			msg := nats.NewMsg(boardSubject("mallory"))
			msg.Header.Set(h.k, h.v)
			msg.Data = mustEncode(t, state.Document{Schema: 4, Plugin: state.Plugin, WallMs: time.Now().UnixMilli()})
			_ = m.nc.PublishMsg(msg)
		}
		_ = m.nc.Flush()
		waitfor.Until(t, "mallory's board on the hub", func() bool { _, ok := hub.MachineBoard("mallory"); return ok })
		if _, err := hub.kvB.Get(context.Background(), "victim"); err != nil {
			t.Errorf("victim's stored board: %v", err)
		}
		// The bucket refuses a roll-up from anyone with the right to
		// write a key (a --nats deployment's machines): the server's own
		// rule, not the hub's.
		js, _ := jetstream.New(hub.nc)
		roll := nats.NewMsg("$KV." + boardsBucket + ".mallory")
		roll.Header.Set("Nats-Rollup", "all")
		if _, err := js.PublishMsg(context.Background(), roll); err == nil || !strings.Contains(err.Error(), "rollup not permitted") {
			t.Errorf("a roll-up on the boards bucket: %v, want refused", err)
		}
		if _, err := hub.kvB.Get(context.Background(), "victim"); err != nil {
			t.Errorf("victim's stored board after a roll-up: %v", err)
		}
	})

	t.Run("its rows are its own, whatever ids they claim", func(t *testing.T) {
		_ = m.nc.Publish(boardSubject("mallory"), mustEncode(t, state.Document{Schema: 4, Plugin: state.Plugin, WallMs: time.Now().UnixMilli(),
			Sessions: []state.Session{{ID: "victim/s1", Status: state.StatusAttention}, {ID: "s1", ParentSession: "victim/s1", Status: state.StatusWorking}}}))
		cards := `{"cards":[{"key":"k1","session":"victim/s1","tool":"Bash","nonce":"` + card.Nonce + `","state":"waiting","sinceMs":1}]}`
		_ = m.nc.Publish(cardsSubject("mallory"), []byte(cards))
		_ = m.nc.Flush()
		waitfor.Until(t, "mallory's claimed rows on the hub", func() bool { return hh.Board().Has("mallory/victim/s1") })
		d, _ := hh.Board().Snapshot(time.Now())
		for _, s := range d.Sessions {
			if s.ID == "victim/s1" && s.Status != state.StatusAttention || strings.HasPrefix(s.ID, "mallory/") && !strings.HasPrefix(s.ParentSession, "mallory/") && s.ParentSession != "" {
				t.Errorf("a row of mallory's reaches another machine's: %+v", s)
			}
		}
		for _, c := range hh.Board().Cards().Cards {
			if strings.HasPrefix(c.Key, "mallory-") && !strings.HasPrefix(c.Session, "mallory/") {
				t.Errorf("mallory's card is under another machine's row: %+v", c)
			}
		}
	})

	t.Run("it cannot answer another machine's card, nor hear its nonce", func(t *testing.T) {
		// The click on victim's card still goes to victim, and is taken.
		got, err := hh.Answer(approveReq(card, "allow"))
		if err != nil || got.Outcome != "allowed" {
			t.Fatalf("the hub's answer to victim: %+v, %v", got, err)
		}
		if r := <-replied; !strings.Contains(string(r), `"allow"`) {
			t.Errorf("victim's held hook got %s", r)
		}
	})

	t.Run("no name the hub uses, nor a paired machine's", func(t *testing.T) {
		for _, name := range append([]string{"hub", "victim"}, reservedNames...) {
			c, err := NewCode(hub.cfg.DSHHome, hubAddr(hub), CodeTTL, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Join(context.Background(), t.TempDir(), c.String(), name, time.Now()); !errors.Is(err, ErrJoin) {
				t.Errorf("joining as %q: %v, want refused", name, err)
			}
		}
	})

	t.Run("no pairing without the code's secret", func(t *testing.T) {
		c, err := NewCode(hub.cfg.DSHHome, hubAddr(hub), CodeTTL, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		nc, err := nats.Connect("tls://"+c.Addr, nats.Secure(pinnedTLS(c.Fingerprint)), nats.UserInfo(pairUser, c.ID+"."+strings.Repeat("A", len(c.Secret))),
			nats.NoReconnect(), nats.Timeout(5*time.Second))
		if err == nil {
			nc.Close()
			t.Error("a pairing login with a wrong secret")
		}
	})

	t.Run("revoked, it reaches nothing", func(t *testing.T) {
		if err := hub.Revoke("mallory"); err != nil {
			t.Fatal(err)
		}
		waitfor.Until(t, "mallory's connection closed", m.nc.IsClosed)
		if _, ok := hub.MachineBoard("mallory"); ok || hh.Board().Has("mallory/victim/s1") {
			t.Error("a revoked machine's rows are still on the hub")
		}
		if _, err := hub.kvB.Get(context.Background(), "mallory"); !errors.Is(err, jetstream.ErrKeyNotFound) {
			t.Errorf("a revoked machine's stored board: %v", err)
		}
		if !hh.Board().Has("victim/s1") {
			t.Error("victim's row went with mallory's revocation")
		}
	})
}

// approveReq is a click on card c.
func approveReq(c host.Card, decision string) host.AnswerRequest {
	return host.AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: decision}
}
