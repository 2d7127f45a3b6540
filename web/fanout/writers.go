package fanout

import (
	"errors"
	"log/slog"
	"math"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/sse"
)

// The fan-out. A stream's connection is taken over from net/http once its
// response head is written (Serve hijacks it), so a frame goes to the
// socket in one write(2) of the frame's own bytes: no chunked encoding, no
// copy through bufio, no deadline timer and no goroutine per stream. A
// small pool of writers takes the streams that have a frame waiting from a
// ready queue and writes each without blocking. A stream whose socket is
// full (its reader is slow or has stopped) leaves the pool for a slow lane
// of its own, a goroutine that finishes the write under WriteTimeout and
// drops the stream when it cannot: a stalled reader never holds up a
// writer, so it never delays the other tabs.
//
// Each stream keeps the hub's queue of one: a frame waiting is replaced by
// the next, and when the waiting frame was a patch the whole page takes its
// place (the stream is behind and must not miss a piece). A stream is
// written by one owner at a time — the writer that took it from the queue,
// its slow lane, or the handler writing its first frame — so frames reach
// it in order.

// stream is one open stream.
type stream struct {
	page string
	conn net.Conn        // the hijacked connection; nil for a dedicated stream
	raw  syscall.RawConn // conn's descriptor, for writes that never block
	// kick wakes a dedicated stream's handler, which writes its frames
	// itself: a response that cannot be hijacked (HTTP/2) is one.
	kick chan struct{}

	mu      sync.Mutex
	pending []byte // the frame waiting, or nil
	beat    bool   // pending is a heartbeat, which any frame replaces
	busy    bool   // queued or being written: its owner writes pending next
	gone    bool   // ended: never written again
	// stopEnd stops the watch of the context that ends a hijacked stream
	// early (ServeUntil), or is nil.
	stopEnd func() bool

	// last is when the last write that completed began, unix ns: the
	// heartbeat reads it for every stream, when it wakes, without taking
	// mu. The start, not the end: the reader may have the frame before the
	// writer is back to stamp it, and no stamp is later than what a reader
	// saw.
	last atomic.Int64
}

// offer queues next on s, or full() (the whole page) when a frame is
// already waiting, and reports whether s must be put on the ready queue
// (it had no owner).
func (s *stream) offer(next []byte, full func() []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return false
	}
	if s.pending == nil || s.beat {
		s.pending = next
	} else {
		s.pending = full()
	}
	s.beat = false
	if s.busy {
		return false
	}
	s.busy = true
	return true
}

// beatIfSilent queues a heartbeat on a stream that has no owner and has
// written nothing since before cutoff, and reports whether it did.
func (s *stream) beatIfSilent(cutoff int64) bool {
	if s.last.Load() > cutoff {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy || s.gone {
		return false
	}
	s.pending, s.beat, s.busy = sse.Heartbeat, true, true
	return true
}

// take hands the owner the waiting frame; with none it gives up ownership
// and returns nil.
func (s *stream) take() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.pending
	s.pending, s.beat = nil, false
	if f == nil || s.gone {
		s.busy = s.gone // a stream that ended stays owned, so it is never queued again
		return nil
	}
	return f
}

// attach gives s its hijacked connection, unless the stream ended
// meanwhile (the hub closed).
func (s *stream) attach(conn net.Conn, raw syscall.RawConn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn, s.raw = conn, raw
	return !s.gone
}

// release is the owner's last step after a write: it keeps s, and reports
// true, when another frame is waiting; otherwise it lets s go.
func (s *stream) release() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending != nil && !s.gone {
		return true
	}
	s.busy = s.gone
	return false
}

// wrote records a completed write that began at start.
func (s *stream) wrote(now time.Time) { s.last.Store(now.UnixNano()) }

// end marks s ended and returns its connection to close, or nil when it
// had ended already (or has none: a dedicated stream's ends with its
// handler).
func (s *stream) end() (net.Conn, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return nil, false
	}
	s.gone, s.busy, s.pending = true, true, nil
	return s.conn, true
}

// writers is the pool that writes streams with a frame waiting.
type writers struct {
	mu   sync.Mutex
	cond sync.Cond
	// ready[head:] is the queue. It is emptied from the front and reset
	// when empty, so its array, as long as the most streams ever queued at
	// once, is reused by every change rather than grown again.
	ready  []*stream
	head   int
	closed bool
}

// writerGrab is how many streams a writer takes from the queue at once:
// enough to make the queue's lock cheap, few enough that the writers share
// a change's streams.
const writerGrab = 32

// push puts streams on the ready queue. A dedicated stream is woken
// instead.
func (p *writers) push(ss ...*stream) {
	n := 0
	p.mu.Lock()
	for _, s := range ss {
		if s.kick != nil {
			select {
			case s.kick <- struct{}{}:
			default:
			}
			continue
		}
		p.ready = append(p.ready, s)
		n++
	}
	p.mu.Unlock()
	switch {
	case n == 1:
		p.cond.Signal()
	case n > 1:
		p.cond.Broadcast()
	}
}

// next waits for streams to write and appends up to writerGrab of them to
// batch; it returns false once the pool is closed.
func (p *writers) next(batch []*stream) ([]*stream, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.head == len(p.ready) && !p.closed {
		p.cond.Wait()
	}
	if p.closed {
		return batch, false
	}
	k := min(len(p.ready)-p.head, writerGrab)
	batch = append(batch, p.ready[p.head:p.head+k]...)
	clear(p.ready[p.head : p.head+k])
	p.head += k
	if p.head == len(p.ready) {
		p.ready, p.head = p.ready[:0], 0
	}
	return batch, true
}

func (p *writers) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cond.Broadcast()
}

// startFanout starts the writers and the heartbeat, once, with the first
// stream; Close ends them.
func (h *Fanout) startFanout() {
	h.fanoutOnce.Do(func() {
		n := h.Writers
		if n <= 0 {
			n = defaultWriters()
		}
		for range n {
			go h.writer()
		}
		if h.Clock <= 0 {
			go h.heartbeat(h.HeartbeatEvery)
		}
	})
}

// defaultWriters is the pool's size: one writer per CPU the process may
// use. A writer never waits on a socket, so more would only take turns.
func defaultWriters() int { return runtime.GOMAXPROCS(0) }

// writer writes the streams the ready queue hands it until the hub closes.
func (h *Fanout) writer() {
	defer h.guard()()
	var batch []*stream
	w := newRawWriter()
	for {
		var ok bool
		if batch, ok = h.pool.next(batch[:0]); !ok {
			return
		}
		for _, s := range batch {
			h.flushStream(w, s)
		}
		clear(batch)
	}
}

// flushStream writes the frame waiting on s without blocking. A frame the
// socket cannot take whole goes to s's slow lane with what is left of it;
// a stream with another frame waiting goes back on the queue behind the
// others.
func (h *Fanout) flushStream(w *rawWriter, s *stream) {
	f := s.take()
	if f == nil {
		return
	}
	if s.raw == nil { // no descriptor to write without blocking
		go h.slowLane(s, f)
		return
	}
	start := time.Now()
	n, err := w.tryWrite(s.raw, f)
	switch {
	case err == nil:
		s.wrote(start)
		if s.release() {
			h.pool.push(s)
		}
	case errors.Is(err, errWouldBlock):
		go h.slowLane(s, f[n:])
	default:
		h.endStream(s, err)
	}
}

// slowLane owns s while its socket is full: it writes rest, then every
// frame that arrives meanwhile, each within WriteTimeout, and ends the
// stream when a write does not finish in time.
func (h *Fanout) slowLane(s *stream, rest []byte) {
	defer h.guard()()
	h.slowLanes.Add(1)
	defer h.slowLanes.Add(-1)
	for rest != nil {
		start := time.Now()
		_ = s.conn.SetWriteDeadline(start.Add(h.WriteTimeout))
		if _, err := s.conn.Write(rest); err != nil {
			h.endStream(s, err)
			return
		}
		s.wrote(start)
		// Clear the deadline before giving the stream back: a writer's
		// next write must not meet it.
		_ = s.conn.SetWriteDeadline(time.Time{})
		rest = s.take()
	}
}

// endStream ends s after a failed write. A write that timed out is a
// stalled reader, which counts as a drop; any other failure is a tab that
// left (or the hub closing).
func (h *Fanout) endStream(s *stream, err error) {
	conn, open := s.end()
	if !open {
		return
	}
	s.mu.Lock()
	stop := s.stopEnd
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	if conn != nil {
		_ = conn.Close()
	}
	h.unsubscribe(s)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		h.drops.Add(1)
		h.log.Info("stream dropped: the reader stalled", "log_type", logx.TypeStream, slog.Group("data", "page", s.page))
	}
}

// heartbeat sends every stream silent for a whole period a heartbeat, so
// the page can tell a live host from a dead one; a stream that carried a
// frame within the period is evidently alive. It sleeps until the first
// stream falls due, not on a ticker: a board where nothing happens wakes
// it once a period, not four times. Awake, it also beats the streams that
// fall due within the next quarter period, so streams opened at different
// moments fall into step and share its wake-ups; it never wakes more
// often than four times a period, so no stream stays silent longer than a
// period and a quarter. A heartbeat is also how a tab that left is
// noticed: its write fails.
func (h *Fanout) heartbeat(every time.Duration) {
	defer h.guard()()
	if every <= 0 {
		return
	}
	slack := max(every/4, time.Millisecond)
	t := time.NewTimer(slack)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case now := <-t.C:
			// Silent for three quarters of a period: beaten now. Any
			// other falls due a period after its last write.
			next := now.Add(every).UnixNano()
			if last := h.beatSilent(now.Add(slack - every).UnixNano()); last != math.MaxInt64 {
				next = min(next, last+int64(every))
			}
			t.Reset(max(time.Until(time.Unix(0, next)), slack))
		}
	}
}

// inlineWrites is how many streams a publish or a beat writes itself, on
// its caller's goroutine, rather than waking a writer: a person's few tabs.
// Waking a writer is a thread woken on an idle machine, a large part of a
// single change's time to reach a single tab and two of an idle host's
// wake-ups a second (issue 34). Beyond it the writers share the streams,
// so a change or a beat of many never holds up its caller for long.
const inlineWrites = 16

// rawWriters are the callers' raw writers (writeNow), reused.
var rawWriters = sync.Pool{New: func() any { return newRawWriter() }}

// writeNow writes the frames waiting on ss, streams its caller owns (taken
// off the ready queue's way by offer or beatIfSilent), without blocking:
// a full socket goes to its slow lane, as a writer's would. A dedicated
// stream is woken to write its own.
func (h *Fanout) writeNow(ss []*stream) {
	if len(ss) == 0 {
		return
	}
	w := rawWriters.Get().(*rawWriter)
	for _, s := range ss {
		if s.kick != nil {
			h.pool.push(s)
			continue
		}
		h.flushStream(w, s)
	}
	rawWriters.Put(w)
}

// Beat is the heartbeat on the owner's clock (Clock): called about every
// Clock, it sends a heartbeat to every stream silent for HeartbeatEvery
// less half a Clock. So a silent stream is beaten on every third beat of
// state.json's 340 ms, every 1.02 s, and never stays silent longer than
// HeartbeatEvery and half a Clock. The fan-out's own timer was one of an
// idle host's wake-ups a second (issue 34). Beat is called from one
// goroutine.
func (h *Fanout) Beat(now time.Time) {
	if h.HeartbeatEvery > 0 {
		h.beatSilent(now.Add(h.Clock/2 - h.HeartbeatEvery).UnixNano())
	}
}

// beatSilent sends a heartbeat to every stream that has written nothing
// since cutoff (unix ns), and returns the earliest last write of the
// others (math.MaxInt64 with none): the next of them falls due a period
// after it. A few streams are written here (writeNow), more by the writers. It
// is called by one goroutine: the fan-out's heartbeat or its owner's Beat.
func (h *Fanout) beatSilent(cutoff int64) (earliest int64) {
	earliest = math.MaxInt64
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return earliest
	}
	due := h.beating[:0]
	for s := range h.clients {
		if s.beatIfSilent(cutoff) {
			due = append(due, s)
		} else {
			earliest = min(earliest, s.last.Load())
		}
	}
	h.beating = due[:0]
	h.mu.Unlock()
	if len(due) > inlineWrites {
		h.pool.push(due...)
	} else {
		h.writeNow(due)
	}
	clear(due)
	return earliest
}

// guard, deferred at the top of the fan-out's own goroutines (the writers,
// the heartbeat, a slow lane), makes a panic there the standard fatal
// record and exit 2 (logx.Guard), never a raw trace. A fan-out made
// without a log recovers nothing.
func (h *Fanout) guard() func() {
	if h.log == nil {
		return func() {}
	}
	return logx.Guard(h.log)
}
