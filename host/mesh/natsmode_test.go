//go:build notch_hub

package mesh

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// TestNATSMode: under --nats (an existing deployment, no hub) each machine
// publishes its own board and writes its own keys, and shows every other
// machine's rows; a stopped one's rows turn unknown — and stay so: its
// goodbye comes on the subscription its boards come on, so a board sent
// before it is never taken after it (under load it was, 1 run in 60, and
// the stopped machine stayed present for good).
func TestNATSMode(t *testing.T) {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		StoreDir: t.TempDir(), NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	t.Cleanup(ns.Shutdown)
	url := fmt.Sprintf("nats://%s", ns.Addr())
	run := func(name string) (*Node, *host.Board, func()) {
		home := t.TempDir()
		n, err := Open(context.Background(), Config{DSHHome: home, Name: name, NATS: url})
		if err != nil {
			t.Fatal(err)
		}
		svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
		b := host.NewBoard(host.BoardConfig{HostPid: 1}, false, svc)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { _ = n.Run(ctx, b); close(done) }()
		stop := func() { cancel(); <-done }
		t.Cleanup(stop)
		return n, b, stop
	}
	a, _, _ := run("alpha")
	_, bb, stopB := run("beta")
	if _, err := bb.Ingest([]state.Event{{Type: state.TypeSessionOpened, Session: "s1", Cwd: "/src/argon"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(t, "beta's row on alpha's board", func() bool { _, ok := hubRow(a, "beta", "s1"); return ok })
	waitfor.Until(t, "beta's board in the store", func() bool { _, err := a.kvB.Get(context.Background(), "beta"); return err == nil })
	stopB()
	stopped := time.Now()
	t.Cleanup(func() {
		if t.Failed() {
			a.remote.mu.Lock()
			m := a.remote.machines["beta"]
			t.Logf("beta on alpha's board: present %v, last seen %v after its stop", m.present, time.UnixMilli(m.lastSeen).Sub(stopped))
			a.remote.mu.Unlock()
		}
	})
	waitfor.Until(t, "beta unknown on alpha's board once it stopped", func() bool { return a.remote.Unknown()["beta/s1"] })
}
