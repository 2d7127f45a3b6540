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

// New returns a logger writing standard records to w at level and above,
// each within MaxRecord bytes.
func New(w io.Writer, level slog.Level) *slog.Logger {
	h := slog.NewJSONHandler(capWriter{w}, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			// Callers' attributes by these names were renamed by typeDefault;
			// the kind checks only keep a stray one from panicking.
			switch a.Key {
			case slog.TimeKey:
				if a.Value.Kind() != slog.KindTime {
					return a
				}
				return slog.String("timestamp", a.Value.Time().UTC().Format(time.RFC3339Nano))
			case slog.LevelKey:
				lv, ok := a.Value.Any().(slog.Level)
				if !ok {
					return a
				}
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
// against the standard record, and renames a caller's top-level attribute
// that would collide with the record's own keys (or be taken for slog's).
type typeDefault struct {
	slog.Handler
	typed   bool // a top-level log_type is already there (With, or added before a group)
	grouped bool // attributes now land inside a group, where no key collides
}

// reserved are the record's own top-level keys: slog's and the standard's.
var reserved = map[string]bool{
	slog.TimeKey: true, slog.LevelKey: true, slog.MessageKey: true, slog.SourceKey: true,
	"timestamp": true, "message": true,
}

func safeKey(a slog.Attr) slog.Attr {
	if reserved[a.Key] {
		a.Key = "attr_" + a.Key
	}
	return a
}

func (t typeDefault) Handle(ctx context.Context, r slog.Record) error {
	if t.grouped {
		return t.Handler.Handle(ctx, r)
	}
	has, clash := t.typed, false
	r.Attrs(func(a slog.Attr) bool {
		has = has || a.Key == "log_type"
		clash = clash || reserved[a.Key]
		return true
	})
	if clash {
		nr := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
		r.Attrs(func(a slog.Attr) bool {
			nr.AddAttrs(safeKey(a))
			return true
		})
		r = nr
	}
	if !has {
		r.AddAttrs(slog.String("log_type", DefaultType))
	}
	return t.Handler.Handle(ctx, r)
}

func (t typeDefault) WithAttrs(as []slog.Attr) slog.Handler {
	if t.grouped {
		return typeDefault{t.Handler.WithAttrs(as), t.typed, true}
	}
	typed := t.typed
	safe := make([]slog.Attr, len(as))
	for i, a := range as {
		typed = typed || a.Key == "log_type"
		safe[i] = safeKey(a)
	}
	return typeDefault{t.Handler.WithAttrs(safe), typed, false}
}

// WithGroup fixes log_type first: every attribute after a group lands in it,
// and the standard wants log_type at the top.
func (t typeDefault) WithGroup(name string) slog.Handler {
	h := t.Handler
	if !t.typed && !t.grouped {
		h = h.WithAttrs([]slog.Attr{slog.String("log_type", DefaultType)})
	}
	return typeDefault{h.WithGroup(name), true, true}
}

// Err formats an error as the standard record's error object.
func Err(name string, err error) slog.Attr {
	return slog.Group("error", slog.String("name", name), slog.String("message", err.Error()))
}

// Log types: the versioned log_type of every record notch-web writes, one
// per concern (docs/architecture.md). A reader filters on these; a change of
// a record's shape bumps its version.
const (
	TypeApproval = "agents-notch.approval.v1" // one per approval decision (host/approvals.go)
	TypeDemo     = "agents-notch.demo.v1"     // the --demo player
	TypeEvents   = "agents-notch.events.v1"   // POST /agents-notch/events
	TypeFollow   = "agents-notch.follow.v1"   // --follow's reads
	TypeHistory  = "agents-notch.history.v1"  // the lasting history (host/store)
	TypeHooks    = "agents-notch.hooks.v1"    // the agents' hooks
	TypeHost     = "agents-notch.host.v1"     // start-up, shutdown
	TypeHTTP     = "agents-notch.http.v1"     // the HTTP server's own errors
	TypeHub      = "agents-notch.hub.v1"      // rendering the pages
	TypeLaunch   = "agents-notch.launch.v1"   // a session started from the board, or refused (host/launch.go)
	TypeMesh     = "agents-notch.mesh.v1"     // many machines (NATS)
	TypeProcess  = "agents-notch.process.v1"  // an agent's process ended without a word (host/procs.go)
	TypePush     = "agents-notch.push.v1"     // pushes sent and withdrawn, their buttons (host/push)
	TypeSecurity = "agents-notch.security.v1" // refusals by the locks
	TypeSettings = "agents-notch.settings.v1" // the three layers and the pane's writes
	TypeState    = "agents-notch.state.v1"    // the fold, state.json, restore, marks
	TypeTerminal = "agents-notch.terminal.v1" // Go to terminal (host/terminal)
	TypeStream   = "agents-notch.stream.v1"   // SSE streams opening and closing
	TypeSteer    = "agents-notch.steer.v1"    // a Reply or Stop typed into a session's pane (host/steer.go)
	TypeWindow   = "agents-notch.window.v1"   // the desktop window's supervisor
	TypeRequest  = "dsh.http.request.v1"      // one per write request (the ecosystem's)
)
