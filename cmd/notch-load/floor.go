//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/sse"
	"github.com/notch-web/notch-web/state"
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
//
// With -beat it also keeps the contract's heartbeat, as any host must: it
// rewrites a state.json every 340 ms with a fresh wallMs, the way
// notch-web does (fsx.Rewriter, no fsync). The idle mode runs it beside
// the bare floor, so what the beat costs and what notch-web does beyond it
// are told apart.

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
	beatPath := fs.String("beat", "", "a state.json to rewrite on the contract's 340 ms beat with a fresh wallMs (its bytes otherwise as they are)")
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
	var beat *beater
	if *beatPath != "" {
		if beat, err = newBeater(*beatPath); err != nil {
			return err
		}
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
	if beat != nil {
		g.Go(func() error { return beat.run(gctx) })
	}
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

// beater keeps a state.json's heartbeat: its bytes as they were, with the
// wallMs restamped on every beat.
type beater struct {
	w          fsx.Rewriter
	head, tail []byte // the file around wallMs's digits
	buf        []byte
}

var wallMsKey = []byte(`"wallMs":`)

func newBeater(path string) (*beater, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-beat: %w", err)
	}
	head, tail, ok := splitWallMs(data)
	if !ok {
		return nil, fmt.Errorf("-beat %s: no \"wallMs\": number in it", path)
	}
	return &beater{w: fsx.Rewriter{Path: path}, head: head, tail: tail}, nil
}

// splitWallMs cuts data around the digits of its first "wallMs": value.
func splitWallMs(data []byte) (head, tail []byte, ok bool) {
	i := bytes.Index(data, wallMsKey)
	if i < 0 {
		return nil, nil, false
	}
	start := i + len(wallMsKey)
	end := start
	for end < len(data) && data[end] >= '0' && data[end] <= '9' {
		end++
	}
	if end == start {
		return nil, nil, false
	}
	return bytes.Clone(data[:start]), bytes.Clone(data[end:]), true
}

// stamp is the file with wallMs set to ms.
func (b *beater) stamp(ms int64) []byte {
	b.buf = append(strconv.AppendInt(append(b.buf[:0], b.head...), ms, 10), b.tail...)
	return b.buf
}

// run beats on a ticker, as notch-web's writer does, until ctx ends.
func (b *beater) run(ctx context.Context) error {
	defer b.w.Close()
	t := time.NewTicker(state.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			if err := b.w.Write(b.stamp(now.UnixMilli())); err != nil {
				return fmt.Errorf("the floor's beat: %w", err)
			}
		}
	}
}
