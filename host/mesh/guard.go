package mesh

import (
	"log/slog"

	"github.com/nats-io/nats.go"

	"github.com/notch-web/notch-web/internal/logx"
)

// guard makes a panic in f, a NATS handler, the standard fatal ERROR record
// and exit 2 (logx.Guard): a handler runs on the client's own goroutine,
// where nothing else would recover it, and its message is outside input.
func guard(log *slog.Logger, f nats.MsgHandler) nats.MsgHandler {
	return func(m *nats.Msg) {
		defer logx.Guard(log)()
		f(m)
	}
}
