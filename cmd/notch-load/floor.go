//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/notch-web/notch-web/internal/sse"
)

// The floor is the least a server can do to deliver notch-web's changes:
// a bare SSE broadcaster on net/http with one goroutine and a queue of one
// (newest wins) per stream, a flush per frame, and no render, no diff and
// no board. It runs as its own process (`notch-load floor-server`) so its
// CPU and RSS are measured from /proc exactly as notch-web's are, and the
// load tool drives and reads it with the same clients. What it keeps per
// stream is what notch-web's hub keeps: the same headers, the latest frame
// sent to a stream when it opens, a heartbeat after a second of silence,
// an 8 KiB kernel send buffer and a 4 s per-write deadline.

// Floor settings, the same as notch-web's hub.
const (
	floorHeartbeat    = time.Second
	floorWriteTimeout = 4 * time.Second
	floorSendBuffer   = 8 << 10
	// floorMaxFrame bounds a published frame; notch-web's whole board is
	// about 14 KB.
	floorMaxFrame = 1 << 20
)

// floor is the broadcaster. A frame is published whole by the load tool:
// the floor neither builds nor inspects it.
type floor struct {
	heartbeat []byte

	mu      sync.Mutex
	streams map[chan []byte]struct{}
	latest  []byte // sent first to a stream that opens, as the hub sends the page
	done    chan struct{}
	closed  bool
	drops   atomic.Int64
}

func newFloor() (*floor, error) {
	return &floor{heartbeat: sse.Heartbeat, streams: map[chan []byte]struct{}{}, done: make(chan struct{})}, nil
}

// routes lists every URL the floor serves: the stream at notch-web's path,
// so the clients' request is byte for byte the one they send notch-web.
func (f *floor) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /agents-notch/stream", f.stream)
	mux.HandleFunc("POST /publish", f.publish)
	mux.HandleFunc("GET /healthz", f.healthz)
	return mux
}

// publish fans the request body, one whole frame, out to every stream.
func (f *floor) publish(w http.ResponseWriter, r *http.Request) {
	frame, err := io.ReadAll(http.MaxBytesReader(w, r.Body, floorMaxFrame))
	if err != nil || len(frame) == 0 {
		http.Error(w, "send one frame, at most 1 MiB", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.latest = frame
	for ch := range f.streams {
		offerNewest(ch, frame)
	}
	f.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// offerNewest queues frame on a queue of one, replacing a frame still
// waiting: the newest wins.
func offerNewest(ch chan []byte, frame []byte) {
	select {
	case ch <- frame:
		return
	default:
	}
	select {
	case <-ch:
	default:
	}
	select {
	case ch <- frame:
	default:
	}
}

// floorHealth is the floor's /healthz: the counters the load tool reads
// from notch-web's, with no renders.
type floorHealth struct {
	OK      bool  `json:"ok"`
	Streams int   `json:"streams"`
	Renders int64 `json:"renders"`
	Drops   int64 `json:"drops"`
}

func (f *floor) healthz(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	h := floorHealth{OK: true, Streams: len(f.streams), Drops: f.drops.Load()}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(h)
}

// stream serves one stream the way the hub's Serve does, less everything
// that is notch-web's own.
func (f *floor) stream(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	hdr.Set("Vary", "Origin") // notch-web's CORS lock adds it
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{})
	if tc, ok := r.Context().Value(floorConnKey{}).(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(floorSendBuffer)
	}
	ch := make(chan []byte, 1)
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	if f.latest != nil {
		ch <- f.latest
	}
	f.streams[ch] = struct{}{}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.streams, ch)
		f.mu.Unlock()
	}()
	write := func(frame []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(floorWriteTimeout))
		if _, err := w.Write(frame); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write(nil) {
		return
	}
	hb := time.NewTimer(floorHeartbeat)
	defer hb.Stop()
	for {
		var frame []byte
		select {
		case <-r.Context().Done():
			return
		case <-f.done:
			return
		case frame = <-ch:
		case <-hb.C:
			frame = f.heartbeat
		}
		if !write(frame) {
			f.drops.Add(1)
			return
		}
		hb.Reset(floorHeartbeat)
	}
}

// close ends every open stream (on shutdown).
func (f *floor) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.done)
	}
}

type floorConnKey struct{}

// runFloor is `notch-load floor-server`: it serves the floor on a loopback
// address and prints its base URL on the first line of stdout, as
// notch-web prints its page's, until ctx ends.
func runFloor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("notch-load floor-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !isLoopback(host) {
		return fmt.Errorf("-addr %q: the floor listens on loopback only", *addr)
	}
	f, err := newFloor()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *addr, err)
	}
	srv := &http.Server{
		Handler: f.routes(),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, floorConnKey{}, c)
		},
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	srv.RegisterOnShutdown(f.close)
	fmt.Fprintf(stdout, "http://%s/\n", ln.Addr())

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	})
	return g.Wait()
}
