package host

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/state"
)

// playDemo plays the built-in scenario in a loop through the same path a
// harness's POST takes: each event is encoded, decoded and validated by
// state.DecodeEvents, then applied to the board.
func playDemo(ctx context.Context, b *Board, log *slog.Logger) error {
	for loop := 0; ; loop++ {
		start := time.Now()
		for _, te := range state.DemoScript(loop) {
			wait := time.Until(start.Add(te.After))
			if wait > 0 {
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(wait):
				}
			}
			line, err := json.Marshal(te.Event)
			if err == nil {
				var evs []state.Event
				if evs, err = state.DecodeEvents(line); err == nil {
					_, err = b.Ingest(evs, time.Now())
				}
			}
			if err != nil {
				log.Error("demo event refused", "log_type", logx.TypeDemo, logx.Err("DemoError", err))
			}
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}
