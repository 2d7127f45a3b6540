//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/mesh"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// notch-load mesh: many machines on one board (issue 21), in three parts.
//
//   - latency: a hub and a joined machine as real processes (TLS on
//     loopback), tabs open on the hub; changes alternate between the hub's
//     own session (the local path) and the machine's (machine → NATS → hub),
//     each from its POST to its marker at every tab. Both distributions
//     come from the same run, the same tabs and the same load.
//   - idle memory: the RSS of the joined machine, of the hub, and of a
//     plain notch-web, each idle with 8 rows, in the same run.
//   - fan-in: an in-process hub and machines (the real mesh code, each
//     machine a board of its own publishing over TLS as notch-web --join
//     does), every machine's sessions changing at a rate for a while, then
//     a final state per session; every final state is checked on the hub.
type meshOptions struct {
	bin                      string
	tabs, changes, runs      int
	machines, sessions, rate int
	load                     time.Duration
	hubAddr                  string
	skipLatency, skipFanIn   bool
}

func runMesh(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o meshOptions
	fs := flag.NewFlagSet("notch-load mesh", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.bin, "bin", "bin/notch-web-hub", "the notch-web binary: the hub's build (-tags notch_hub), for its --hub")
	fs.IntVar(&o.tabs, "tabs", 100, "hub tabs (board streams) open")
	fs.IntVar(&o.changes, "changes", 60, "changes of each path per run (local and remote alternate)")
	fs.IntVar(&o.runs, "runs", 3, "runs of each part; the report adds their median")
	fs.IntVar(&o.machines, "machines", 50, "fan-in: simulated machines")
	fs.IntVar(&o.sessions, "sessions", 20, "fan-in: sessions per machine")
	fs.IntVar(&o.rate, "rate", 5, "fan-in: changes per second of each session")
	fs.DurationVar(&o.load, "duration", 10*time.Second, "fan-in: how long the machines change")
	fs.StringVar(&o.hubAddr, "hub-addr", "127.0.0.1:0", "where the hubs listen for machines")
	fs.BoolVar(&o.skipLatency, "no-latency", false, "skip the latency and memory part")
	fs.BoolVar(&o.skipFanIn, "no-fan-in", false, "skip the fan-in part")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	switch {
	case o.tabs < 1 || o.tabs > 5000:
		return errors.New("-tabs must be in 1 … 5000")
	case o.changes < 5 || o.changes > 500:
		return errors.New("-changes must be in 5 … 500")
	case o.runs < 1 || o.runs > 9:
		return errors.New("-runs must be in 1 … 9")
	case o.machines < 1 || o.machines > 200 || o.sessions < 1 || o.sessions > state.MaxSessions || o.rate < 1 || o.rate > 50:
		return fmt.Errorf("-machines 1 … 200, -sessions 1 … %d, -rate 1 … 50", state.MaxSessions)
	case !o.skipFanIn && !linksHub:
		return errors.New("the fan-in runs a hub in this process: use bin/notch-load-hub (make build; -tags notch_hub), or -no-fan-in")
	}
	if !o.skipLatency {
		if err := meshLatency(ctx, &o, stdout); err != nil {
			return fmt.Errorf("latency: %w", err)
		}
	}
	if !o.skipFanIn {
		if err := meshFanIn(ctx, &o, stdout); err != nil {
			return fmt.Errorf("fan-in: %w", err)
		}
	}
	return nil
}

// latencyRun is one run's figures.
type latencyRun struct {
	local, remote      stats
	missL, missR       int
	rssMachine, rssHub float64 // KiB, idle, before the tabs open
	rssPlain           float64
}

func meshLatency(ctx context.Context, o *meshOptions, stdout io.Writer) error {
	fmt.Fprintf(stdout, "## A change on a machine reaching a hub tab, beside the local path (%d tabs, %d changes of each per run)\n\n", o.tabs, o.changes)
	fmt.Fprintln(stdout, "| run | local p50 | local p99 | remote p50 | remote p99 | p99 difference | missed | idle RSS: machine / hub / plain |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|---|---|")
	var runs []latencyRun
	for r := 1; r <= o.runs; r++ {
		lr, err := latencyOnce(ctx, o)
		if err != nil {
			return err
		}
		runs = append(runs, lr)
		fmt.Fprintf(stdout, "| %d | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %+.2f ms | %d / %d | %.1f / %.1f / %.1f MB |\n", r,
			lr.local.P50, lr.local.P99, lr.remote.P50, lr.remote.P99, lr.remote.P99-lr.local.P99, lr.missL, lr.missR,
			lr.rssMachine/1024, lr.rssHub/1024, lr.rssPlain/1024)
	}
	pick := func(f func(latencyRun) float64) float64 {
		v := make([]float64, len(runs))
		for i, x := range runs {
			v[i] = f(x)
		}
		return medianOf(v)
	}
	lp99, rp99 := pick(func(x latencyRun) float64 { return x.local.P99 }), pick(func(x latencyRun) float64 { return x.remote.P99 })
	diff := pick(func(x latencyRun) float64 { return x.remote.P99 - x.local.P99 })
	fmt.Fprintf(stdout, "| median | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %+.2f ms | | %.1f / %.1f / %.1f MB |\n\n",
		pick(func(x latencyRun) float64 { return x.local.P50 }), lp99,
		pick(func(x latencyRun) float64 { return x.remote.P50 }), rp99, diff,
		pick(func(x latencyRun) float64 { return x.rssMachine })/1024, pick(func(x latencyRun) float64 { return x.rssHub })/1024,
		pick(func(x latencyRun) float64 { return x.rssPlain })/1024)
	verdict := "met"
	if diff > 5 {
		verdict = "NOT met"
	}
	fmt.Fprintf(stdout, "Target: remote p99 ≤ local p99 + 5 ms — median difference %+.2f ms: %s.\n\n", diff, verdict)
	return nil
}

// latencyOnce starts a hub, a machine joined to it and a plain notch-web,
// reads their idle RSS, opens the tabs on the hub and drives the changes.
func latencyOnce(ctx context.Context, o *meshOptions) (latencyRun, error) {
	var lr latencyRun
	top, err := os.MkdirTemp("", "notch-load-mesh-")
	if err != nil {
		return lr, err
	}
	defer os.RemoveAll(top)
	hubHome, mHome, plainHome := filepath.Join(top, "hub"), filepath.Join(top, "machine"), filepath.Join(top, "plain")
	hub, err := startServer(ctx, o.bin, "--dsh-home", hubHome, "--hub", "--hub-addr", o.hubAddr, "--machine", "hub")
	if err != nil {
		return lr, err
	}
	defer hub.stop()
	var info mesh.HubInfo
	b, err := os.ReadFile(filepath.Join(mesh.Dir(hubHome), "hub.json"))
	if err != nil || json.Unmarshal(b, &info) != nil {
		return lr, fmt.Errorf("the hub's hub.json: %v", err)
	}
	code, err := mesh.NewCode(hubHome, fmt.Sprintf("127.0.0.1:%d", info.Port), mesh.CodeTTL, time.Now())
	if err != nil {
		return lr, err
	}
	machine, err := startServer(ctx, o.bin, "--dsh-home", mHome, "--join", code.String(), "--machine", "box")
	if err != nil {
		return lr, err
	}
	defer machine.stop()
	plain, err := startServer(ctx, o.bin, "--dsh-home", plainHome)
	if err != nil {
		return lr, err
	}
	for _, s := range []*server{hub, machine, plain} {
		if err := s.post("/agents-notch/events", boardEvents(8)); err != nil {
			plain.stop()
			return lr, err
		}
	}
	// The machine's rows on the hub.
	deadline := time.Now().Add(10 * time.Second)
	for !hubHas(hub, "box/load-0") {
		if time.Now().After(deadline) {
			plain.stop()
			return lr, errors.New("the machine's rows never reached the hub")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // idle
	for _, x := range []struct {
		s   *server
		rss *float64
	}{{machine, &lr.rssMachine}, {hub, &lr.rssHub}, {plain, &lr.rssPlain}} {
		p, _ := procStats(x.s.pid)
		*x.rss = p.rssKiB
	}
	plain.stop()

	// Odd changes go to the hub's own session, even ones to the machine's:
	// one tracker, markers unique and rising across both.
	total := 2 * o.changes
	tr := newTracker(markTitle, o.tabs, total)
	rd := newReaders(newTracker(markNone, o.tabs, 0))
	clients, err := openStreams(ctx, hub, o.tabs, rd)
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	if err != nil {
		return lr, err
	}
	time.Sleep(time.Second)
	rd.phase(tr)
	drive := func(seq int) error {
		ev := fmt.Sprintf(`{"type":"session.titled","session":"load-0","title":"change %s"}`, marker(seq))
		if seq%2 == 1 {
			return hub.post("/agents-notch/events", ev)
		}
		return machine.post("/agents-notch/events", ev)
	}
	if _, err := runChanges(ctx, tr, total, drive, pacedGap, func(int, time.Time) {}, func() {}); err != nil {
		return lr, err
	}
	lr.local, lr.missL = tr.statsOf(1)
	lr.remote, lr.missR = tr.statsOf(0)
	return lr, nil
}

// statsOf is stats over the changes whose seq%2 is parity.
func (t *tracker) statsOf(parity int) (stats, int) {
	return t.statsWhere(func(seq int) bool { return seq%2 == parity })
}

// hubHas reports whether the hub's state carries row id.
func hubHas(s *server, id string) bool {
	res, err := s.http.Get(s.url + "/agents-notch/state")
	if err != nil {
		return false
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	d, err := state.Decode(b)
	if err != nil {
		return false
	}
	for _, r := range d.Sessions {
		if r.ID == id {
			return true
		}
	}
	return false
}

// fanInRun is one fan-in run's figures.
type fanInRun struct {
	events     int
	wrong      int
	convergeMs float64
	cpuMs      float64 // this process's CPU over the load (hub and machines)
}

func meshFanIn(ctx context.Context, o *meshOptions, stdout io.Writer) error {
	fmt.Fprintf(stdout, "## Fan-in: %d machines × %d sessions × %d changes/s for %v, then a final state per session\n\n", o.machines, o.sessions, o.rate, o.load)
	fmt.Fprintln(stdout, "| run | changes sent | final states wrong | all final on the hub after the last | CPU (hub + machines, this process) |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|")
	var conv []float64
	for r := 1; r <= o.runs; r++ {
		fr, err := fanInOnce(ctx, o)
		if err != nil {
			return err
		}
		conv = append(conv, fr.convergeMs)
		fmt.Fprintf(stdout, "| %d | %d | %d of %d | %.0f ms | %.1f s |\n", r, fr.events, fr.wrong, o.machines*o.sessions, fr.convergeMs, fr.cpuMs/1000)
		if fr.wrong > 0 {
			return fmt.Errorf("%d final states wrong on the hub", fr.wrong)
		}
	}
	fmt.Fprintf(stdout, "| median | | 0 | %.0f ms | |\n\n", medianOf(conv))
	return nil
}

// finalOf is session s of machine m's final state: a title, and working
// or needs-you by turns.
func finalOf(m, s int) (string, string) {
	if s%2 == 0 {
		return fmt.Sprintf("final m%d s%d", m, s), state.StatusWorking
	}
	return fmt.Sprintf("final m%d s%d", m, s), state.StatusAttention
}

func fanInOnce(ctx context.Context, o *meshOptions) (fanInRun, error) {
	var fr fanInRun
	top, err := os.MkdirTemp("", "notch-load-fanin-")
	if err != nil {
		return fr, err
	}
	defer os.RemoveAll(top)
	log := slog.New(slog.DiscardHandler)
	hubHome := filepath.Join(top, "hub")
	hub, err := mesh.Open(ctx, mesh.Config{DSHHome: hubHome, Name: "hub", Hub: true, HubAddr: o.hubAddr, Log: log})
	if err != nil {
		return fr, err
	}
	defer hub.Close()
	addr := fmt.Sprintf("127.0.0.1:%d", hub.Port())
	type machine struct {
		name  string
		board *host.Board
		node  *mesh.Node
		done  chan struct{}
	}
	mctx, stop := context.WithCancel(ctx)
	var ms []*machine
	defer func() {
		stop()
		for _, m := range ms {
			<-m.done
		}
	}()
	for i := range o.machines {
		name := fmt.Sprint("m", i)
		home := filepath.Join(top, name)
		code, err := mesh.NewCode(hubHome, addr, mesh.CodeTTL, time.Now())
		if err != nil {
			return fr, err
		}
		if _, err := mesh.Join(ctx, home, code.String(), name, time.Now()); err != nil {
			return fr, err
		}
		svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json"), Log: log})
		b := host.NewBoard(host.BoardConfig{HostPid: 1}, false, svc)
		n, err := mesh.Open(ctx, mesh.Config{DSHHome: home, Join: true, Log: log})
		if err != nil {
			return fr, err
		}
		m := &machine{name: name, board: b, node: n, done: make(chan struct{})}
		ms = append(ms, m)
		go func() { _ = n.Run(mctx, b); close(m.done) }()
	}
	cpu0, _ := procStats(os.Getpid())
	var wg sync.WaitGroup
	var mu sync.Mutex
	start := time.Now()
	for mi, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(time.Second / time.Duration(o.rate))
			defer tick.Stop()
			sent := 0
			for k := 1; time.Since(start) < o.load; k++ {
				<-tick.C
				evs := make([]state.Event, 0, 2*o.sessions)
				for s := range o.sessions {
					id := fmt.Sprint("s", s)
					if k == 1 {
						evs = append(evs, state.Event{Type: state.TypeSessionOpened, Session: id, Cwd: fmt.Sprintf("/src/m%d", mi)},
							state.Event{Type: state.TypeTurnStarted, Session: id})
					}
					evs = append(evs, state.Event{Type: state.TypeSessionTitled, Session: id, Title: fmt.Sprint("step ", k)})
				}
				_, _ = m.board.Ingest(evs, time.Now())
				sent += o.sessions
			}
			final := make([]state.Event, 0, 2*o.sessions)
			for s := range o.sessions {
				id := fmt.Sprint("s", s)
				title, status := finalOf(mi, s)
				final = append(final, state.Event{Type: state.TypeSessionTitled, Session: id, Title: title})
				if status == state.StatusAttention {
					final = append(final, state.Event{Type: state.TypeApprovalRequested, Session: id, Tool: "Bash"})
				}
			}
			_, _ = m.board.Ingest(final, time.Now())
			mu.Lock()
			fr.events += sent + o.sessions
			mu.Unlock()
		}()
	}
	wg.Wait()
	last := time.Now()
	wrongNow := func() int {
		wrong := 0
		for mi, m := range ms {
			d, ok := hub.MachineBoard(m.name)
			got := map[string]state.Session{}
			if ok {
				for _, s := range d.Sessions {
					got[s.ID] = s
				}
			}
			for s := range o.sessions {
				title, status := finalOf(mi, s)
				if r := got[fmt.Sprint("s", s)]; r.Title != title || r.Status != status {
					wrong++
				}
			}
		}
		return wrong
	}
	deadline := last.Add(30 * time.Second)
	for {
		if fr.wrong = wrongNow(); fr.wrong == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	fr.convergeMs = float64(time.Since(last).Microseconds()) / 1000
	cpu1, _ := procStats(os.Getpid())
	fr.cpuMs = cpu1.cpuMs - cpu0.cpuMs
	if fr.wrong > 0 {
		fr.convergeMs = -1
		fmt.Fprintf(os.Stderr, "notch-load mesh: %s\n", strings.Repeat("!", 3)+fmt.Sprintf(" %d final states wrong 30 s after the last change", fr.wrong))
	}
	return fr, nil
}
