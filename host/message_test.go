package host

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/internal/syncbuf"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// An agent's message (notch-web mcp's send_message) is a Reply with all
// of its checks, and only with --mcp-steer: off, nothing is typed; on, it
// reaches the other session's agent and the log names the calling
// session (never the text); a session never messages itself, and a Stop
// is no message.
func TestAgentsMessage(t *testing.T) {
	p := newSteerPane(t)
	h := newHost(t, t.TempDir())
	var logged syncbuf.Buffer
	h.log = slog.New(slog.NewJSONHandler(&logged, nil))
	typed := filepath.Join(p.dir, "typed")
	p.line(`printf ' > \n\n'; stty -echo; cat > ` + typed)
	target := p.child("cat")
	p.foreground(false)
	where := terminal.Where{TmuxPane: p.pane, TmuxSocket: p.sock}
	if !terminal.ValidSocket(p.sock) {
		t.Skipf("the temporary folder's path %q is not one a hook would keep", p.sock)
	}
	caller, err := proc.Of(os.Getpid()) // the agent that runs notch-web mcp
	if err != nil {
		t.Skip("no process ids here:", err)
	}
	hook := func(id string, o Origin) {
		t.Helper()
		if _, err := h.HookFrom("gemini", []byte(`{"session_id":"`+id+`","cwd":"/src/p","hook_event_name":"SessionStart","source":"startup","timestamp":"2026-12-03T10:00:00Z"}`), time.Now(), o); err != nil {
			t.Fatal(err)
		}
	}
	hook("g1", Origin{Where: where, Proc: target})
	hook("caller", Origin{Proc: caller})
	ctx := context.Background()

	if err := h.Message(ctx, SteerRequest{Session: "g1", Text: "touch nothing"}, caller); !errors.Is(err, ErrMCPSteerOff) {
		t.Fatalf("a message without --mcp-steer: %v, want ErrMCPSteerOff", err)
	}
	h.cfg.MCPSteer = true
	if err := h.Message(ctx, SteerRequest{Session: "g1", Stop: true}, caller); err == nil {
		t.Errorf("a Stop through a message was taken")
	}
	if err := h.Message(ctx, SteerRequest{Session: "g1", Text: "from a sibling"}, target); !errors.Is(err, ErrMessageSelf) {
		t.Errorf("a session's message to itself: %v, want ErrMessageSelf", err)
	}
	if err := h.Message(ctx, SteerRequest{Session: "g1", Text: "hello from caller"}, caller); err != nil {
		t.Fatalf("a message with --mcp-steer: %v", err)
	}
	waitfor.Until(t, "the agent got the message", func() bool { b, _ := os.ReadFile(typed); return string(b) == "hello from caller\n" })
	log := logged.String()
	for _, want := range []string{`"session":"g1"`, `"from":"caller"`, `"result":"typed"`, `start notch-web with --mcp-steer`, `cannot send a message to itself`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "hello from caller") {
		t.Errorf("the log carries the message's text:\n%s", log)
	}
}
