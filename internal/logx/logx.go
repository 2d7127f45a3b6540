// Package logx makes a slog.Logger that writes the ecosystem's standard log
// record (standard-log-record.v1): one JSON object per line with timestamp,
// level DEBUG|INFO|WARNING|ERROR, a versioned log_type, message, and the
// optional operation_id, error {name, message} and data.
package logx

import (
	"context"
	"io"
	"log/slog"
	"time"
)

// DefaultType is the log_type of a record that does not name its own.
const DefaultType = "agents-notch.host.v1"

// New returns a logger writing standard records to w at level and above.
func New(w io.Writer, level slog.Level) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.TimeKey:
				return slog.String("timestamp", a.Value.Time().UTC().Format(time.RFC3339Nano))
			case slog.LevelKey:
				lv := a.Value.Any().(slog.Level)
				name := "DEBUG"
				switch {
				case lv >= slog.LevelError:
					name = "ERROR"
				case lv >= slog.LevelWarn:
					name = "WARNING"
				case lv >= slog.LevelInfo:
					name = "INFO"
				}
				return slog.String("level", name)
			case slog.MessageKey:
				return slog.String("message", a.Value.String())
			}
			return a
		},
	})
	return slog.New(typeDefault{Handler: h})
}

// typeDefault adds log_type to records that lack one, so every line is valid
// against the standard record.
type typeDefault struct {
	slog.Handler
	typed bool // a With("log_type", …) already names it
}

func (t typeDefault) Handle(ctx context.Context, r slog.Record) error {
	if !t.typed {
		has := false
		r.Attrs(func(a slog.Attr) bool {
			has = a.Key == "log_type"
			return !has
		})
		if !has {
			r.AddAttrs(slog.String("log_type", DefaultType))
		}
	}
	return t.Handler.Handle(ctx, r)
}

func (t typeDefault) WithAttrs(as []slog.Attr) slog.Handler {
	typed := t.typed
	for _, a := range as {
		typed = typed || a.Key == "log_type"
	}
	return typeDefault{t.Handler.WithAttrs(as), typed}
}

func (t typeDefault) WithGroup(name string) slog.Handler {
	return typeDefault{t.Handler.WithGroup(name), t.typed}
}

// Err formats an error as the standard record's error object.
func Err(name string, err error) slog.Attr {
	return slog.Group("error", slog.String("name", name), slog.String("message", err.Error()))
}
