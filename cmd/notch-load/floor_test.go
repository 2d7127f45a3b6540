//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/sse"
)

// startTestFloor serves the floor's routes on loopback, as runFloor does.
func startTestFloor(t *testing.T) *server {
	t.Helper()
	f, err := newFloor()
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(f.routes())
	ts.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, floorConnKey{}, c)
	}
	ts.Config.RegisterOnShutdown(f.close)
	ts.Start()
	t.Cleanup(ts.Close)
	return &server{url: ts.URL, http: ts.Client()}
}

// TestFloorMeasuredLikeNotchWeb drives the floor the way a floor run does
// and reads it with the load tool's own clients: every change reaches every
// stream, and client 0 counts exactly the frame's bytes per change.
func TestFloorMeasuredLikeNotchWeb(t *testing.T) {
	h := startTestFloor(t)
	const n, changes, size, page = 5, 6, 784, 13117
	initial, err := floorFrame(0, page)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.publish(initial); err != nil {
		t.Fatal(err)
	}
	opening := newTracker(markNone, n, 0)
	rd := newReaders(opening)
	conns, err := openStreams(context.Background(), h, n, rd)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for opening.patches.Load() < 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := opening.bytesPerPatch(); got != page {
		t.Errorf("a new stream got %v bytes first, want the %d-byte page", got, page)
	}
	tr := newTracker(markTitle, n, changes)
	rd.phase(tr)
	if _, err := runChanges(context.Background(), tr, changes, func(seq int) error {
		f, err := floorFrame(seq, size)
		if err != nil {
			return err
		}
		return h.publish(f)
	}, func() time.Duration { return time.Millisecond }, func(int, time.Time) {}, func() {}); err != nil {
		t.Fatal(err)
	}
	st, missed := tr.stats()
	if missed != 0 || st.N != n*changes {
		t.Errorf("%d of %d deliveries recorded, %d missed", st.N, n*changes, missed)
	}
	if got := tr.bytesPerPatch(); got != size {
		t.Errorf("client 0 counted %v bytes per change, want %d", got, size)
	}
	if hh, err := h.health(); err != nil || hh.Streams != n || hh.Renders != 0 {
		t.Errorf("healthz = %+v, %v; want %d streams and no renders", hh, err, n)
	}
}

// TestFloorStream: notch-web's headers, the latest frame first, and a
// heartbeat when the stream has been silent a second.
func TestFloorStream(t *testing.T) {
	h := startTestFloor(t)
	frame, err := floorFrame(3, 600)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.publish(frame); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, h.url+"/agents-notch/stream?page=board", nil)
	req.Header.Set("Datastar-Request", "true")
	res, err := h.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	for k, v := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	br := bufio.NewReader(res.Body)
	got := make([]byte, len(frame))
	if _, err := io.ReadFull(br, got); err != nil || !bytes.Equal(got, frame) {
		t.Fatalf("first frame %q (%v), want the latest %q", got, err, frame)
	}
	start := time.Now()
	hb := sse.Heartbeat
	got = make([]byte, len(hb))
	if _, err := io.ReadFull(br, got); err != nil || !bytes.Equal(got, hb) {
		t.Fatalf("after silence: %q (%v), want the heartbeat", got, err)
	}
	if d := time.Since(start); d < floorHeartbeat/2 {
		t.Errorf("heartbeat after %v of silence, want about %v", d, floorHeartbeat)
	}
}

func TestFloorPublishRefusesNothing(t *testing.T) {
	h := startTestFloor(t)
	if err := h.publish(nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("an empty publish: %v, want 400", err)
	}
}

func TestOfferNewest(t *testing.T) {
	ch := make(chan []byte, 1)
	for _, f := range []string{"a", "b", "c"} {
		offerNewest(ch, []byte(f))
	}
	if got := string(<-ch); got != "c" {
		t.Errorf("queue of one holds %q, want the newest, c", got)
	}
	select {
	case f := <-ch:
		t.Errorf("a second frame %q was queued", f)
	default:
	}
}

func TestSplitWallMs(t *testing.T) {
	for _, tc := range []struct {
		in         string
		head, tail string
		ok         bool
	}{
		{`{"schema":4,"wallMs":1790000000000,"hostPid":1}`, `{"schema":4,"wallMs":`, `,"hostPid":1}`, true},
		{`{"wallMs":0}`, `{"wallMs":`, `}`, true},
		{`{"wallMs":12,"x":{"wallMs":34}}`, `{"wallMs":`, `,"x":{"wallMs":34}}`, true},
		{`{"wallMs":null}`, "", "", false},
		{`{"wallMs": 12}`, "", "", false}, // notch-web writes no space; the floor copies its bytes
		{`{"schema":4}`, "", "", false},
		{``, "", "", false},
	} {
		head, tail, ok := splitWallMs([]byte(tc.in))
		if ok != tc.ok || string(head) != tc.head || string(tail) != tc.tail {
			t.Errorf("splitWallMs(%q) = %q, %q, %v; want %q, %q, %v", tc.in, head, tail, ok, tc.head, tc.tail, tc.ok)
		}
	}
}

func FuzzSplitWallMs(f *testing.F) {
	f.Add([]byte(`{"schema":4,"wallMs":1790000000000}`))
	f.Add([]byte(`"wallMs":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		head, tail, ok := splitWallMs(data)
		if !ok {
			return
		}
		b := &beater{head: head, tail: tail}
		if got := b.stamp(42); !bytes.Contains(got, []byte(`"wallMs":42`)) || len(got) > len(data)+2 {
			t.Fatalf("stamp of %q = %q", data, got)
		}
	})
}

// TestFloorBeat: the floor's beat rewrites the file with a fresh wallMs
// and every other byte as it was, as notch-web's beat does.
func TestFloorBeat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	const head, tail = `{"schema":4,"plugin":"dsh-agents-notch/host","wallMs":`, `,"hostPid":4242,"sessions":[]}` + "\n"
	if err := os.WriteFile(path, []byte(head+"1"+tail), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := newBeater(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.run(ctx) }()
	before := time.Now().UnixMilli()
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got = string(data); got != head+"1"+tail {
			break
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ms, ok := strings.CutPrefix(got, head)
	ms, ok2 := strings.CutSuffix(ms, tail)
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || !ok2 || err != nil || n < before-1000 || n > time.Now().UnixMilli() {
		t.Fatalf("the beat wrote %q; want %q around a wallMs near %d", got, head+"…"+tail, before)
	}
	if _, err := newBeater(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("newBeater of a missing file: no error")
	}
}
