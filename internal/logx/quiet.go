package logx

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultRepeatWindow is how often a repeated record is summarised.
const DefaultRepeatWindow = 30 * time.Second

// maxRepeatKeys bounds the records remembered, so a flood of distinct
// errors costs bounded memory: past it, a new record is written as it
// comes, untracked, until flush forgets records quiet for a window.
const maxRepeatKeys = 1000

// Quiet holds back repeats: a WARNING or ERROR record identical to one
// written less than its window ago (same level, message and attributes) is
// counted instead of written, and the count is written as one summary — the
// record again, with repeats.count and repeats.since — when the window has
// passed, whether the repeats go on (at the next one) or stop (at Run's next
// tick). A state.json that cannot be written every 340 ms is then one line,
// and a line every 30 s while it lasts, never a line a beat.
type Quiet struct {
	window time.Duration
	now    func() time.Time

	mu   sync.Mutex
	seen map[string]*repeat
}

type repeat struct {
	h      slog.Handler // the handler that wrote the first, to write the summary
	rec    slog.Record  // the last repeat, cloned
	last   time.Time    // when the record (or its summary) was last written
	count  int          // repeats held back since then
	sinceT time.Time    // the first of them
}

// NewQuiet returns a logger writing standard records to w at level and
// above, holding back repeats (see Quiet) for window (0 means
// DefaultRepeatWindow). Run the Quiet to write summaries when repeats stop.
func NewQuiet(w io.Writer, level slog.Level, window time.Duration) (*slog.Logger, *Quiet) {
	if window <= 0 {
		window = DefaultRepeatWindow
	}
	q := &Quiet{window: window, now: time.Now, seen: map[string]*repeat{}}
	return slog.New(quietHandler{q: q, next: New(w, level).Handler()}), q
}

// Run writes the summaries of repeats that stopped, every window, until ctx
// ends; then it writes what is still held back and returns nil.
func (q *Quiet) Run(ctx context.Context) error {
	t := time.NewTicker(q.window)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			q.Flush()
			return nil
		case <-t.C:
			q.flush(false)
		}
	}
}

// Flush writes every summary still held back, due or not: the last thing a
// program logs before it exits.
func (q *Quiet) Flush() { q.flush(true) }

// flush writes the summaries that are due (all of them when final) and
// forgets records quiet for a whole window.
func (q *Quiet) flush(final bool) {
	now := q.now()
	q.mu.Lock()
	var due []*repeat
	for k, r := range q.seen {
		if r.count > 0 && (final || now.Sub(r.last) >= q.window) {
			due = append(due, r.take(now))
		} else if r.count == 0 && now.Sub(r.last) >= q.window {
			delete(q.seen, k)
		}
	}
	q.mu.Unlock()
	for _, r := range due {
		_ = r.h.Handle(context.Background(), r.summary())
	}
}

// take returns the repeats held back, to summarise, and starts counting
// again from now. Called with q.mu held.
func (r *repeat) take(now time.Time) *repeat {
	due := &repeat{h: r.h, rec: r.rec, count: r.count, sinceT: r.sinceT}
	r.count, r.last = 0, now
	return due
}

// summary is the held-back record again, saying how often it repeated.
func (r *repeat) summary() slog.Record {
	rec := r.rec.Clone()
	rec.Message += " (repeated " + strconv.Itoa(r.count) + "×)"
	rec.AddAttrs(slog.Group("repeats", slog.Int("count", r.count), slog.String("since", r.sinceT.UTC().Format(time.RFC3339Nano))))
	return rec
}

// quietHandler is the slog.Handler in front of the standard one.
type quietHandler struct {
	q      *Quiet
	next   slog.Handler
	prefix string // the attributes and groups added by With, as part of the key
}

func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.prefix)
	for _, a := range as {
		b.WriteString(a.String())
		b.WriteByte(';')
	}
	return quietHandler{q: h.q, next: h.next.WithAttrs(as), prefix: b.String()}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{q: h.q, next: h.next.WithGroup(name), prefix: h.prefix + "g:" + name + ";"}
}

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.next.Handle(ctx, r)
	}
	var b strings.Builder
	b.WriteString(h.prefix)
	b.WriteString(r.Level.String())
	b.WriteByte('|')
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b.WriteByte('|')
		b.WriteString(a.String())
		return true
	})
	key := b.String()
	now := h.q.now()

	h.q.mu.Lock()
	rp, ok := h.q.seen[key]
	if ok && now.Sub(rp.last) < h.q.window {
		if rp.count == 0 {
			rp.sinceT = now
		}
		rp.count++
		rp.rec = r.Clone()
		h.q.mu.Unlock()
		return nil
	}
	if ok && rp.count > 0 {
		// The window has passed with repeats held back: this one joins
		// them, and the summary is written instead of the record.
		rp.count++
		rp.rec = r.Clone()
		due := rp.take(now)
		h.q.mu.Unlock()
		return due.h.Handle(ctx, due.summary())
	}
	if !ok {
		if len(h.q.seen) >= maxRepeatKeys {
			h.q.mu.Unlock()
			return h.next.Handle(ctx, r)
		}
		rp = &repeat{}
		h.q.seen[key] = rp
	}
	rp.h, rp.last, rp.count = h.next, now, 0
	h.q.mu.Unlock()
	return h.next.Handle(ctx, r)
}
