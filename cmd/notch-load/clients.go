//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// tracker records when each change's marker reached each client, in one
// phase of a run.
type tracker struct {
	kind       markerKind
	n, changes int
	sentAt     []atomic.Int64   // unix ns the change was sent, per seq
	arrived    [][]atomic.Int64 // unix ns it reached client i, per seq
	count      []atomic.Int32   // clients that have it, per seq
	last       []int            // the newest seq client i has; only its reader touches it
	patch      atomic.Int64     // bytes of patch-elements frames read by client 0
	patches    atomic.Int64     // how many
}

func newTracker(kind markerKind, n, changes int) *tracker {
	t := &tracker{kind: kind, n: n, changes: changes, sentAt: make([]atomic.Int64, changes+1),
		arrived: make([][]atomic.Int64, changes+1), count: make([]atomic.Int32, changes+1), last: make([]int, n)}
	for i := range t.arrived {
		t.arrived[i] = make([]atomic.Int64, n)
	}
	return t
}

func (t *tracker) sent(seq int, at time.Time) { t.sentAt[seq].Store(at.UnixNano()) }

// seen records that client i read a frame carrying seq's marker at now. A
// frame carries only the newest marker, so the changes it skipped (newest
// wins) arrived with it.
func (t *tracker) seen(i, seq int, now int64) {
	if seq < 1 || seq > t.changes {
		return
	}
	last := &t.last[i]
	for s := *last + 1; s <= seq; s++ {
		if t.sentAt[s].Load() != 0 && t.arrived[s][i].Load() == 0 {
			t.arrived[s][i].Store(now)
			t.count[s].Add(1)
		}
	}
	if seq > *last {
		*last = seq
	}
}

func (t *tracker) wait(seq int, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for int(t.count[seq].Load()) < t.n && time.Now().Before(deadline) {
		time.Sleep(500 * time.Microsecond)
	}
}

// bytesPerPatch is what client 0 read per patch-elements frame in the
// phase: whole frames, less any chunked encoding.
func (t *tracker) bytesPerPatch() float64 {
	if n := t.patches.Load(); n > 0 {
		return float64(t.patch.Load()) / float64(n)
	}
	return 0
}

func (t *tracker) stats() (stats, int) { return t.statsWhere(func(int) bool { return true }) }

// statsWhere is stats over the changes whose seq keep says yes to.
func (t *tracker) statsWhere(keep func(seq int) bool) (stats, int) {
	var lat []float64
	missed := 0
	for s := 1; s <= t.changes; s++ {
		if !keep(s) {
			continue
		}
		sent := t.sentAt[s].Load()
		for i := 0; i < t.n; i++ {
			if a := t.arrived[s][i].Load(); a != 0 {
				lat = append(lat, float64(a-sent)/1e6)
			} else {
				missed++
			}
		}
	}
	return summarize(lat), missed
}

// lastArrivals is, per change, how long it took to reach its last client
// (ms; 0 when one never had it): the raw data says which changes made a
// run's p99, since one slow sweep of N clients is N late deliveries.
func (t *tracker) lastArrivals() []float64 {
	out := make([]float64, 0, t.changes)
	for s := 1; s <= t.changes; s++ {
		sent, last := t.sentAt[s].Load(), int64(0)
		for i := 0; i < t.n; i++ {
			a := t.arrived[s][i].Load()
			if a == 0 {
				last = 0
				break
			}
			last = max(last, a)
		}
		if last == 0 {
			out = append(out, 0)
			continue
		}
		out = append(out, float64((last-sent)/1000)/1000)
	}
	return out
}

// readers hands every client's reader the tracker of the current phase.
type readers struct{ cur atomic.Pointer[tracker] }

func newReaders(t *tracker) *readers {
	rd := &readers{}
	rd.cur.Store(t)
	return rd
}

// phase makes t the tracker the readers record into from their next read.
func (rd *readers) phase(t *tracker) { rd.cur.Store(t) }

// streamRequest is what the browser's @get sends, less the cookies.
func streamRequest(host string) string {
	return "GET /agents-notch/stream?page=board HTTP/1.1\r\nHost: " + host +
		"\r\nAccept: text/event-stream, text/html, application/json\r\nDatastar-Request: true\r\n\r\n"
}

// openStreams opens n board streams in batches (the listen backlog is
// finite) and waits for the server to count each batch.
func openStreams(ctx context.Context, s *server, n int, rd *readers) ([]net.Conn, error) {
	host := s.url[len("http://"):]
	conns := make([]net.Conn, 0, n)
	const batch = 250
	for len(conns) < n {
		for j := 0; j < batch && len(conns) < n; j++ {
			c, err := net.Dial("tcp", host)
			if err != nil {
				return conns, fmt.Errorf("opening stream %d: %w", len(conns), err)
			}
			if _, err := c.Write([]byte(streamRequest(host))); err != nil {
				return conns, err
			}
			i := len(conns)
			conns = append(conns, c)
			go readStream(c, i, rd)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			h, err := s.health()
			if err == nil && h.Streams >= len(conns) {
				break
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				return conns, fmt.Errorf("the server holds %d of %d streams", h.Streams, len(conns))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return conns, nil
}

var patchEvent = []byte("event: datastar-patch-elements\n")

// readStream reads one stream and records each marker of the current
// phase as it arrives. Only client 0 splits the stream into frames (to
// count patch bytes); the others scan raw bytes.
func readStream(c net.Conn, i int, rd *readers) {
	// Each read lands after the tail of the last one, so a marker split
	// between two reads is found whole.
	buf := make([]byte, markerTail+8<<10)
	held := 0
	var frames chunkReader
	for {
		n, err := c.Read(buf[held:])
		if n > 0 {
			now := time.Now().UnixNano()
			t := rd.cur.Load()
			data := buf[:held+n]
			scanMarkers(data, t.kind, func(seq int) { t.seen(i, seq, now) })
			if i == 0 {
				_ = frames.feed(data[held:], func(f []byte) {
					if bytes.HasPrefix(f, patchEvent) {
						t.patch.Add(int64(len(f)))
						t.patches.Add(1)
					}
				})
			}
			held = copy(buf, data[max(0, len(data)-markerTail):])
		}
		if err != nil {
			return
		}
	}
}

// openStalled opens a stream whose reader never reads, with a tiny receive
// buffer, as a frozen tab would.
func openStalled(s *server) (net.Conn, error) {
	host := s.url[len("http://"):]
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	c, err := d.Dial("tcp", host)
	if err != nil {
		return nil, err
	}
	_, err = c.Write([]byte(streamRequest(host)))
	return c, err
}

// poller reads state.json every 340 ms, as the desktop window does, and
// records when each change's marker first shows.
type poller struct {
	path   string
	sentAt []atomic.Int64
	mu     sync.Mutex
	lat    []float64
}

func newPoller(path string, changes int) *poller {
	return &poller{path: path, sentAt: make([]atomic.Int64, changes+1)}
}

func (p *poller) sent(seq int, at time.Time) { p.sentAt[seq].Store(at.UnixNano()) }

func (p *poller) run(ctx context.Context) {
	tick := time.NewTicker(state.Heartbeat)
	defer tick.Stop()
	last := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		data, err := os.ReadFile(p.path)
		if err != nil {
			continue
		}
		seq := 0
		scanMarkers(data, markTitle, func(s int) { seq = max(seq, s) })
		if seq < 1 || seq >= len(p.sentAt) {
			continue
		}
		now := time.Now().UnixNano()
		p.mu.Lock()
		for s := last + 1; s <= seq; s++ {
			if sent := p.sentAt[s].Load(); sent != 0 {
				p.lat = append(p.lat, float64(now-sent)/1e6)
			}
		}
		p.mu.Unlock()
		if seq > last {
			last = seq
		}
	}
}

func (p *poller) stats() stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return summarize(append([]float64(nil), p.lat...))
}

var followStart = time.Now()

// followedDoc is a schema-4 document another host could have written.
func followedDoc(seq, rows int) []byte {
	now := time.Now().UnixMilli()
	since := followStart.UnixMilli() // rows entered their status once: only the marker changes
	d := state.Document{Schema: state.Schema, Plugin: state.Plugin, WallMs: now, HostPid: 1, Retire: "route",
		Context: state.Context{HotAt: 0.5}, Settings: settings.Defaults, Sessions: []state.Session{}}
	for i := 0; i < rows; i++ {
		title := fmt.Sprintf("Refactor the module loader, part %d", i)
		if i == 0 {
			title = "change " + marker(seq)
		}
		d.Sessions = append(d.Sessions, state.Session{ID: fmt.Sprintf("load-%d", i), Title: title,
			Project: fmt.Sprintf("project-%d", i%3), Status: "working", Since: since,
			Activity: &state.Activity{Kind: "tool", Label: "bash"}, Steps: i, Identity: "teal", ContextTokens: int64(40000 * (i + 1))})
	}
	d.Summary = state.Summary{Status: "working", Working: rows, Total: rows}
	data, _ := state.Encode(d)
	return data
}

// postRate is the settings write rate.
type postRate struct {
	Kind       string  `json:"kind"`
	Sequential float64 `json:"sequentialPerSecond"`
	Parallel   float64 `json:"parallel4PerSecond"`
	Posts      int     `json:"posts"`
}

// measurePosts times settings POSTs with the durable write (fsync and
// rename), one at a time and four at a time.
func measurePosts(ctx context.Context, o *options) (*postRate, error) {
	home, err := os.MkdirTemp("", "notch-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	h, err := startServer(ctx, o.bin, "--dsh-home", home)
	if err != nil {
		return nil, err
	}
	defer h.stop()
	r := &postRate{Kind: "settings-posts", Posts: o.posts}
	start := time.Now()
	for i := 0; i < o.posts; i++ {
		if err := h.post("/agents-notch/settings", fmt.Sprintf(`{"scale":%.2f}`, 1+float64(i%50)/100)); err != nil {
			return nil, err
		}
	}
	r.Sequential = float64(o.posts) / time.Since(start).Seconds()
	start = time.Now()
	var wg sync.WaitGroup
	var failed atomic.Value
	keys := []string{"holdMs", "maxRows", "opacity", "ghostOpacity"}
	vals := []string{"%d", "%d", "0.%d", "0.%d"}
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < o.posts/4; i++ {
				v := fmt.Sprintf(vals[w], 500+i)
				if err := h.post("/agents-notch/settings", fmt.Sprintf(`{%q:%s}`, keys[w], v)); err != nil {
					failed.Store(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return nil, err
	}
	r.Parallel = float64(o.posts/4*4) / time.Since(start).Seconds()
	// Every worker's key must be in the file: nothing lost.
	data, err := os.ReadFile(home + "/state/agents-notch/settings.json")
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if !bytes.Contains(data, []byte(`"`+k+`"`)) {
			return nil, fmt.Errorf("settings.json lost %s under parallel POSTs: %s", k, data)
		}
	}
	return r, nil
}
