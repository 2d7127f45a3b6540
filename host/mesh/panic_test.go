//go:build notch_hub

package mesh

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/logx/fataltest"
	"github.com/notch-web/notch-web/internal/syncbuf"
	"github.com/notch-web/notch-web/settings"
)

// TestAHandlerPanicOverNATS: an answer from the hub reaches a machine whose
// answerer panics (a defect on the machine's side, run on the NATS client's
// goroutine): the machine writes the standard fatal ERROR record and exits
// 2, never a raw trace.
func TestAHandlerPanicOverNATS(t *testing.T) {
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
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	home := t.TempDir()
	n, err := Open(context.Background(), Config{DSHHome: home, Name: "alpha", NATS: url, Log: logx.New(&buf, slog.LevelInfo)})
	if err != nil {
		t.Fatal(err)
	}
	n.SetAnswerer(func(host.AnswerRequest) (host.Card, error) { panic("the answerer's defect") })
	svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
	b := host.NewBoard(host.BoardConfig{HostPid: 1}, false, svc)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = n.Run(ctx, b); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := nc.Publish(approveSubject("alpha"), []byte(`{"session":"s1","nonce":"n1","decision":"allow"}`)); err != nil {
		t.Fatal(err)
	}
	fataltest.Wait(t, codes, buf.String, "the answerer's defect")
	if !strings.Contains(buf.String(), "onApprove") {
		t.Errorf("record lacks %s: %s", "onApprove", buf.String())
	}
}
