package state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/pace"
)

// DefaultMinGap is the least time between two writes of state.json.
const DefaultMinGap = 20 * time.Millisecond

// While writes fail: the longest gap between two tries, and how often the
// failures are reported.
const (
	MaxBackoff        = 10 * time.Second
	ErrorSummaryEvery = 30 * time.Second
)

// Writer keeps state.json current: it writes at once when notified of a
// change, and otherwise at least every Interval with a fresh wallMs, which
// is the window's heartbeat (docs/contract.md rule 3). Each write is atomic, so a reader
// never sees half a file, but not fsynced: after a power cut the next beat
// rewrites the file anyway. The writes go through an fsx.Rewriter, which
// on Linux has two files take turns instead of creating one per beat.
type Writer struct {
	Path     string
	Interval time.Duration // 0 = Heartbeat
	// Snapshot builds the document to write; it is called from Run's
	// goroutine, so it takes whatever lock guards the fold.
	Snapshot func(now time.Time) Document
	// OnError hears a failed write; Run carries on, because the next try
	// may succeed and a missed beat is what the window's staleness rule is
	// for. While writes keep failing (a full disk) Run tries again after a
	// growing gap (twice the last, from twice Interval up to MaxBackoff),
	// not every beat, and OnError hears the first failure and then at most
	// one every ErrorSummaryEvery, wrapped with how many failed since the
	// last report. Nil drops the errors.
	OnError func(error)
	// OnRecovered hears the first good write after failures, with how many
	// writes failed; nil ignores it.
	OnRecovered func(failures int)
	// MinGap is the least time between two writes: a burst of changes
	// (every hook of many agents) is written at this pace, the newest
	// document each time; a change after a quiet spell is written at once.
	// 0 means DefaultMinGap.
	MinGap time.Duration
	// OnWritten hears each successful write; nil ignores them. The host
	// spawns the window after the first one.
	OnWritten func()
	// OnBeat, when set, hears every beat of Interval, from Run's
	// goroutine, after the beat's write (or in its place while writes fail
	// and back off): a clock for work that must happen about as often, so
	// it shares the beat's wake-up instead of waking the process on a timer
	// of its own (the streams' heartbeat, web/fanout). It must not block.
	OnBeat func(now time.Time)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Version, when set, counts the changes of what Snapshot returns but
	// for the clock, and NextChange (nil: never) is the instant the clock
	// alone next changes a document (a timer retire: host.Board.NextChange).
	// While the version is the last write's and that instant has not come,
	// a write is the last write's bytes with a fresh wallMs — what Snapshot
	// and Encode would give, without building or encoding the document: a
	// heartbeat costs the write and nothing else.
	Version    func() uint64
	NextChange func(d Document) time.Time

	last  []byte    // the last write's bytes (Version set)
	lastV uint64    // the version they are of
	due   time.Time // when the clock alone next changes them (zero: never)
	wall  [2]int    // where their wallMs's digits are: [start, end)

	file *fsx.Rewriter // Path's
}

// Run writes until ctx ends, then returns nil. It writes once at start,
// again on every receive from notify (a nil or closed notify just means
// heartbeats only), and whenever Interval passes without a write. It first
// removes temporary files a killed predecessor left behind.
func (w *Writer) Run(ctx context.Context, notify <-chan struct{}) error {
	if w.Path == "" || w.Snapshot == nil {
		return errors.New("state: Writer needs a Path and a Snapshot func")
	}
	interval := w.Interval
	if interval <= 0 {
		interval = Heartbeat
	}
	// Even a host stopped before this goroutine ran writes once: the
	// changes it took are in the snapshot, and a restart reads them.
	gap := w.MinGap
	if gap <= 0 {
		gap = DefaultMinGap
	}
	fsx.RemoveStaleTemps(w.Path, time.Minute, w.now())
	defer w.close()
	f := failing{interval: interval}
	f.done(w, w.write())
	// A write for a change paces the next; a heartbeat does not, so a
	// change just after one is still written at once.
	p := pace.Pace{Gap: gap}
	// The beat is a ticker, never a timer reset after each write: a reset
	// moves the runtime's earliest deadline, which breaks its network
	// poller out of its sleep — a second thread woken on every beat
	// (issue 34). A ticker's next deadline is set where it fires. A change's
	// write leaves the beat where it is: the next beat follows it within
	// Interval, as the contract asks, and is only a restamp.
	beat := time.NewTicker(interval)
	defer beat.Stop()
	// A change not yet written when ctx ends (notified, or with Version
	// set, counted) is written before Run returns: a host stopped just
	// after a change, within the pace or before this goroutine ran,
	// restarts from it.
	last := func() error {
		pending := w.Version != nil && w.Version() != w.lastV
		select {
		case <-notify:
			pending = true
		default:
		}
		if pending && f.failures == 0 {
			f.done(w, w.write())
		}
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return last()
		case _, ok := <-notify:
			if !ok {
				notify = nil // a closed channel would spin; keep beating
				continue
			}
			if f.failures > 0 {
				continue // the next try, after the back-off, writes it
			}
			if !p.Wait(ctx) {
				f.done(w, w.write())
				return nil
			}
			f.done(w, w.write())
			p.Mark(time.Now())
		case <-beat.C:
			now := w.now()
			if f.failures == 0 || !now.Before(f.retry) {
				f.done(w, w.write())
			}
			// The beat goes on while writes fail: whoever keeps time by
			// it (the streams' heartbeat) hears a live host.
			if w.OnBeat != nil {
				w.OnBeat(now)
			}
		}
	}
}

// failing is the writer's run of failed writes: the back-off and the
// reports.
type failing struct {
	interval time.Duration
	failures int           // in a row
	backoff  time.Duration // the gap before the next try
	retry    time.Time     // when the next try is due (failures > 0)
	reported time.Time     // when OnError last heard
	unsaid   int           // failures since then
}

// done records a write's result and reports what is due.
func (f *failing) done(w *Writer, err error) {
	now := w.now()
	if err == nil {
		if f.failures > 0 && w.OnRecovered != nil {
			w.OnRecovered(f.failures)
		}
		*f = failing{interval: f.interval}
		return
	}
	f.failures++
	f.backoff = min(max(2*f.backoff, 2*f.interval), MaxBackoff)
	f.retry = now.Add(f.backoff)
	f.unsaid++
	if w.OnError == nil {
		return
	}
	switch {
	case f.failures == 1:
		w.OnError(err)
		f.reported, f.unsaid = now, 0
	case now.Sub(f.reported) >= ErrorSummaryEvery:
		w.OnError(fmt.Errorf("%w (%d failed writes in a row, %d since the last report)", err, f.failures, f.unsaid))
		f.reported, f.unsaid = now, 0
	}
}

func (w *Writer) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Writer) write() error {
	data, err := w.document(w.now())
	if err == nil {
		if w.file == nil {
			w.file = &fsx.Rewriter{Path: w.Path}
		}
		err = w.file.Write(data)
	}
	if err == nil && w.OnWritten != nil {
		w.OnWritten()
	}
	return err
}

// close removes the Rewriter's spare: a stopped host leaves state.json
// alone beside its other files.
func (w *Writer) close() {
	if w.file != nil {
		if err := w.file.Close(); err != nil && w.OnError != nil {
			w.OnError(err)
		}
	}
}

// document is the bytes to write as of now: a fresh snapshot, encoded, or
// (Version set, nothing changed, no change by time due) the last one with
// now's wallMs.
func (w *Writer) document(now time.Time) ([]byte, error) {
	if w.Version == nil {
		return Encode(w.Snapshot(now))
	}
	// The version is read before the snapshot: a change racing it bumps
	// the version past the one recorded, and the next write snapshots.
	v := w.Version()
	if w.last != nil && v == w.lastV && (w.due.IsZero() || now.Before(w.due)) {
		if b, ok := restamp(w.last, w.wall, now.UnixMilli()); ok {
			w.last = b
			return b, nil
		}
	}
	d := w.Snapshot(now)
	data, err := Encode(d)
	if err != nil {
		return nil, err
	}
	w.last, w.lastV, w.due = data, v, time.Time{}
	if w.NextChange != nil {
		w.due = w.NextChange(d)
	}
	if w.wall, err = wallDigits(data); err != nil {
		w.last = nil // never restamped; every write snapshots
	}
	return data, nil
}

// wallKey is how an encoded document's wallMs begins. A JSON string holds
// its quotes escaped, so the bare key is the top level's field.
var wallKey = []byte(`"wallMs":`)

// wallDigits finds the digits of an encoded document's wallMs.
func wallDigits(b []byte) ([2]int, error) {
	i := bytes.Index(b, wallKey)
	if i < 0 {
		return [2]int{}, errors.New("state: no wallMs in the encoded document")
	}
	i += len(wallKey)
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == i {
		return [2]int{}, errors.New("state: wallMs is not a number")
	}
	return [2]int{i, j}, nil
}

// restamp writes wall over an encoded document's wallMs digits, in place
// when the digits are as many (13 from 2001 to 2286); ok is false when
// they are not.
func restamp(b []byte, at [2]int, wall int64) ([]byte, bool) {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], wall, 10)
	if len(d) != at[1]-at[0] {
		return nil, false
	}
	copy(b[at[0]:at[1]], d)
	return b, true
}
