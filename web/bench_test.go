package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/templates"
)

// fill opens n sessions in varied states on the env's board, in five
// projects.
func fill(b testing.TB, e *testEnv, n int) { fillProjects(b, e, n, 5) }

// fillProjects opens n sessions in varied states on the env's board, in
// the given number of projects.
func fillProjects(b testing.TB, e *testEnv, n, projects int) {
	var evs []state.Event
	tokens := int64(412034)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("session-%02d", i)
		evs = append(evs,
			state.Event{Type: "session.opened", Session: id, Cwd: fmt.Sprintf("/home/me/src/project-%d", i%projects)},
			state.Event{Type: "session.titled", Session: id, Title: fmt.Sprintf("Refactor the module loader, part %d", i)},
			state.Event{Type: "turn.started", Session: id},
			state.Event{Type: "tool.started", Session: id, Tool: "bash"},
			state.Event{Type: "context.tokens", Session: id, Tokens: &tokens},
		)
		switch i % 4 {
		case 1:
			evs = append(evs, state.Event{Type: "approval.requested", Session: id, Tool: "pwsh", Reason: "writes outside the workspace"})
		case 2:
			evs = append(evs, state.Event{Type: "tool.ended", Session: id, Tool: "bash", Outcome: "error"})
		case 3:
			evs = append(evs, state.Event{Type: "turn.ended", Session: id, Outcome: "completed"})
		}
	}
	if _, err := e.board.Ingest(evs, time.Now()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRenderBoard40 renders the board fragment with 40 sessions, as the
// hub does once per change.
func BenchmarkRenderBoard40(b *testing.B) {
	e := newEnv(b, envOpts{})
	fill(b, e, 40)
	bv, _ := e.hub.Models(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		if err := templates.Board(bv).Render(context.Background(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderBoard40Groups8 renders the board fragment with 40
// sessions in 8 projects: the board of a day with many sessions.
func BenchmarkRenderBoard40Groups8(b *testing.B) {
	e := newEnv(b, envOpts{})
	fillProjects(b, e, 40, 8)
	bv, _ := e.hub.Models(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		if err := templates.Board(bv).Render(context.Background(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefresh40 is the hub's whole work for one change with 40
// sessions: snapshot, change check, render of both pages, fan-out.
func BenchmarkRefresh40(b *testing.B) {
	e := newEnv(b, envOpts{})
	fill(b, e, 40)
	title := "Refactor the module loader, part 0"
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		e.board.Ingest([]state.Event{{Type: "session.titled", Session: "session-00", Title: fmt.Sprint(title, i)}}, time.Now())
		e.hub.Refresh(time.Now())
	}
}

// BenchmarkSettingsPost is a settings POST end to end over loopback HTTP,
// with the durable write (fsync and rename).
func BenchmarkSettingsPost(b *testing.B) {
	e := newEnv(b, envOpts{})
	client := &http.Client{}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		res, err := client.Post(e.base+"/agents-notch/settings", "application/json", strings.NewReader(fmt.Sprintf(`{"holdMs":%d}`, 500+i%3000)))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatal(res.Status)
		}
	}
}

// BenchmarkFanout is one change seen by every open tab: a retitled session
// ingested, the refresh that renders and diffs it, and the fan-out to N
// real loopback streams, timed until the last stream has read the change.
// The readers share the process (and its cores) with the server, as the
// load tool's share the machine: compare runs, not absolute numbers. One
// tab is issue 34's one change at the floor.
func BenchmarkFanout(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchFanout(b, n) })
	}
}

func benchFanout(b *testing.B, n int) {
	e := newEnv(b, envOpts{})
	fill(b, e, 8)
	e.hub.Refresh(time.Now())
	fanoutLoop(b, e, n, scanTitle, func(seq int) {
		e.board.Ingest([]state.Event{{Type: "session.titled", Session: "session-00", Title: fanoutMarker(seq)}}, time.Now())
		e.hub.Refresh(time.Now())
	})
}

// fanoutLoop opens n readers and times change(seq), one change at a time,
// until every reader has it; it reports the time and the CPU per delivery.
func fanoutLoop(b *testing.B, e *testEnv, n int, scan func([]byte, func(int)), change func(seq int)) {
	fo := openFanoutReaders(b, e, n, scan)
	defer fo.close()
	b.ReportAllocs()
	cpu0 := cpuTime()
	seq := 0
	for b.Loop() {
		seq++
		fo.expect(seq)
		change(seq)
		fo.wait(b)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(seq*n), "ns/delivery")
	// CPU time is steadier than wall time on a shared machine; it counts
	// the readers' reads too, which every variant of the server pays alike.
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(seq*n), "cpu-ns/delivery")
}

// fanoutMarker is the fixed-width title a fan-out benchmark's change seq sets.
func fanoutMarker(seq int) string { return fmt.Sprintf("fan%08dz", seq) }

// holdBase is the holdMs of a settings benchmark's change 0 (holdMs clamps
// to 500 … 4000).
const holdBase = 500

// scanTitle calls fn with the seq of every fanoutMarker in data.
func scanTitle(data []byte, fn func(seq int)) {
	for off := 0; ; {
		i := bytes.Index(data[off:], []byte("fan"))
		if i < 0 || off+i+12 > len(data) {
			return
		}
		i += off
		if data[i+11] == 'z' {
			if seq, err := strconv.Atoi(string(data[i+3 : i+11])); err == nil {
				fn(seq)
			}
		}
		off = i + 3
	}
}

// scanHold calls fn with the seq of every data-hold-ms the board carries in
// data.
func scanHold(data []byte, fn func(seq int)) {
	mark := []byte(`data-hold-ms="`)
	for off := 0; ; {
		i := bytes.Index(data[off:], mark)
		if i < 0 {
			return
		}
		i += off + len(mark)
		end := bytes.IndexByte(data[i:], '"')
		if end < 0 {
			return
		}
		if v, err := strconv.Atoi(string(data[i : i+end])); err == nil {
			fn(v - holdBase)
		}
		off = i + end
	}
}

// fanoutReaders are n raw TCP streams, each read by a goroutine that
// counts down when the change it waits for arrives.
type fanoutReaders struct {
	scan  func(data []byte, fn func(seq int))
	conns []net.Conn
	want  atomic.Int64
	left  atomic.Int64
	done  chan struct{}
}

func openFanoutReaders(b testing.TB, e *testEnv, n int, scan func([]byte, func(int))) *fanoutReaders {
	host := strings.TrimPrefix(e.base, "http://")
	fo := &fanoutReaders{scan: scan, done: make(chan struct{}, 1)}
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", host)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(c, "GET /agents-notch/stream?page=board HTTP/1.1\r\nHost: %s\r\n\r\n", host)
		fo.conns = append(fo.conns, c)
		go fo.read(c)
		if i%200 == 199 {
			waitClients(b, e.hub, i+1)
		}
	}
	waitClients(b, e.hub, n)
	return fo
}

func waitClients(b testing.TB, h *Hub, n int) {
	deadline := time.Now().Add(20 * time.Second)
	for h.Clients() < n {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d streams open", h.Clients(), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (fo *fanoutReaders) expect(seq int) {
	fo.left.Store(int64(len(fo.conns)))
	fo.want.Store(int64(seq))
}

func (fo *fanoutReaders) wait(b testing.TB) {
	select {
	case <-fo.done:
	case <-time.After(10 * time.Second):
		b.Fatalf("%d streams never got change %d", fo.left.Load(), fo.want.Load())
	}
}

func (fo *fanoutReaders) close() {
	for _, c := range fo.conns {
		c.Close()
	}
}

func (fo *fanoutReaders) read(c net.Conn) {
	buf := make([]byte, 32<<10)
	held, last := 0, 0
	for {
		k, err := c.Read(buf[held:])
		if err != nil {
			return
		}
		data := buf[:held+k]
		fo.scan(data, func(seq int) {
			// The default holdMs reads as a change far ahead: only the
			// change awaited counts.
			if seq > last && int64(seq) == fo.want.Load() {
				last = seq
				if fo.left.Add(-1) == 0 {
					fo.done <- struct{}{}
				}
			}
		})
		held = copy(buf, data[max(0, len(data)-32):])
	}
}

// BenchmarkFanoutSettings is a settings change seen by every open tab: the
// durable write of settings.json, the refresh, and the fan-out to N
// loopback streams, timed until the last stream has read the new holdMs.
func BenchmarkFanoutSettings(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchFanoutSettings(b, n) })
	}
}

func benchFanoutSettings(b *testing.B, n int) {
	e := newEnv(b, envOpts{})
	fill(b, e, 8)
	// The changes here come back to back, which the hub paces to one render
	// per MinRefresh; this measures what a change costs, so no pause.
	e.hub.MinRefresh = 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.hub.Run(ctx)
	fanoutLoop(b, e, n, scanHold, func(seq int) {
		c, err := settings.ParseRequest([]byte(fmt.Sprintf(`{"holdMs":%d}`, holdBase+seq)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.svc.Change(c); err != nil {
			b.Fatal(err)
		}
	})
}
