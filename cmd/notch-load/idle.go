//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// runIdle is `notch-load idle`: what notch-web costs while nothing
// happens (issue 34). For each number of rows it starts a fresh notch-web
// with that many live rows (working, asking and done, each with a "since"
// the page ticks), opens the tabs, lets it settle, and measures over a
// quiet spell with no change: the process's CPU per second, its wake-ups
// per second, and how many renders and view builds the hub made. Each
// notch-web run is followed by the floor (notch-load floor-server) with
// the same streams, holding the same opening page: what the streams'
// heartbeats alone cost. With -base, a second notch-web binary (the
// before) runs first in each round, so before, after and the floor come
// from the same run.
func runIdle(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("notch-load idle", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := fs.String("bin", "bin/notch-web", "the notch-web binary")
	base := fs.String("base", "", "another notch-web binary (the before) measured beside -bin in each round")
	rowsList := fs.String("rows", "20,200", "comma-separated numbers of live rows")
	tabs := fs.Int("tabs", 2, "open board streams")
	dur := fs.Duration("duration", 60*time.Second, "the quiet spell measured in each run")
	runs := fs.Int("runs", 3, "rounds (each: the base if any, notch-web, the floor)")
	out := fs.String("out", "", "append the raw results here as JSON Lines")
	pane := fs.String("pane", "", "a settings.json (the pane's layer, as JSON) written before each notch-web starts, as a user who changed a setting has one; empty: none, a fresh install")
	var also listFlag
	fs.Var(&also, "also", "another notch-web binary measured in each round, as NAME=PATH (repeatable): an experiment beside the before and after")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var rows []int
	for _, s := range strings.Split(*rowsList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 1000 {
			return fmt.Errorf("-rows: %q is not a count in 1 … 1000", s)
		}
		rows = append(rows, n)
	}
	switch {
	case *tabs < 1 || *tabs > 1000:
		return errors.New("-tabs must be in 1 … 1000")
	case *dur < time.Second || *dur > 10*time.Minute:
		return errors.New("-duration must be in 1s … 10m")
	case *runs < 1 || *runs > 9:
		return errors.New("-runs must be in 1 … 9")
	case *pane != "" && !json.Valid([]byte(*pane)):
		return errors.New("-pane is not JSON")
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this binary to start the floor: %w", err)
	}
	enc := json.NewEncoder(io.Discard)
	if *out != "" {
		f, err := os.OpenFile(*out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		enc = json.NewEncoder(f)
	}
	bins := []struct{ name, path string }{{"notch-web", *bin}}
	if *base != "" {
		bins = append([]struct{ name, path string }{{"base", *base}}, bins...)
	}
	for _, a := range also {
		name, path, ok := strings.Cut(a, "=")
		if !ok || name == "" || path == "" || name == "floor" {
			return fmt.Errorf("-also %q: want NAME=PATH", a)
		}
		bins = append(bins, struct{ name, path string }{name, path})
	}
	fmt.Fprintf(stdout, "## Idle: %d tabs, no change for %v (issue 34)\n\n", *tabs, *dur)
	if *pane != "" {
		fmt.Fprintf(stdout, "settings.json written before each start: `%s`\n\n", *pane)
	}
	fmt.Fprintln(stdout, "| rows | run | process | CPU ms/s | CPU ms/s, /proc ticks | wake-ups/s | renders | view builds |")
	fmt.Fprintln(stdout, "|---:|---:|---|---:|---:|---:|---:|---:|")
	type key struct {
		rows int
		proc string
	}
	all := map[key][]*idleResult{}
	for _, n := range rows {
		for r := 1; r <= *runs; r++ {
			var opening int
			var stateJSON []byte // the -bin run's state.json, for the floor's beat
			for _, b := range bins {
				res, st, err := idleHost(ctx, b.path, *pane, n, *tabs, *dur)
				if err != nil {
					return fmt.Errorf("%s idle with %d rows: %w", b.name, n, err)
				}
				res.Process, res.Run = b.name, r
				if b.name == "notch-web" {
					opening, stateJSON = res.OpeningBytes, st
				}
				idleRow(stdout, res)
				_ = enc.Encode(res)
				all[key{n, b.name}] = append(all[key{n, b.name}], res)
			}
			for _, beat := range []bool{false, true} {
				res, err := idleFloor(ctx, self, n, *tabs, opening, stateJSON, beat, *dur)
				if err != nil {
					return fmt.Errorf("%s idle: %w", floorName(beat), err)
				}
				res.Run = r
				idleRow(stdout, res)
				_ = enc.Encode(res)
				all[key{n, res.Process}] = append(all[key{n, res.Process}], res)
			}
		}
	}

	fmt.Fprintf(stdout, "\n### Medians of %d runs\n\n", *runs)
	fmt.Fprintln(stdout, "| rows | process | CPU ms/s (runs) | median | its own work: less the floor | less the floor with the beat | wake-ups/s median | renders | view builds /s | target |")
	fmt.Fprintln(stdout, "|---:|---|---|---:|---:|---:|---:|---:|---:|---|")
	for _, n := range rows {
		cpuMed := func(p string) float64 {
			return medianOf(pluckIdle(all[key{n, p}], func(r *idleResult) float64 { return r.CPUMsPerS }))
		}
		floorMed, beatMed := cpuMed(floorName(false)), cpuMed(floorName(true))
		for _, p := range append(namesOf(bins), floorName(false), floorName(true)) {
			rs := all[key{n, p}]
			cpu := pluckIdle(rs, func(r *idleResult) float64 { return r.CPUMsPerS })
			med := medianOf(cpu)
			own, beyond, target := "—", "—", "—"
			if p == floorName(true) {
				own = fmt.Sprintf("%.2f", med-floorMed)
			}
			if p != floorName(false) && p != floorName(true) {
				own = fmt.Sprintf("%.2f", med-floorMed)
				beyond = fmt.Sprintf("%.2f", med-beatMed)
				limit := 1.0
				if n > 20 {
					limit = 2.0
				}
				target = fmt.Sprintf("≤ %.0f: %s", limit, verdict(med-floorMed <= limit))
			}
			fmt.Fprintf(stdout, "| %d | %s | %s | %.2f | %s | %s | %.1f | %.0f | %.2f | %s |\n", n, p, list(cpu, 2), med, own, beyond,
				medianOf(pluckIdle(rs, func(r *idleResult) float64 { return r.WakeupsPerS })),
				medianOf(pluckIdle(rs, func(r *idleResult) float64 { return float64(r.Renders) })),
				medianOf(pluckIdle(rs, func(r *idleResult) float64 { return r.ViewsPerS })), target)
		}
	}
	fmt.Fprintf(stdout, "\n*CPU ms/s* is the process's run time over the quiet spell (the sum of its threads' /proc schedstat, ns), per second; the /proc ticks column is the same from utime+stime (10 ms resolution). *Wake-ups/s* are its threads' context switches per second. *Renders* are the hub's renders in the spell (/healthz `renders`); *view builds* its builds of the pages' view (/healthz `views`; 0 on a binary that does not report them). The floor is a bare SSE broadcaster with the same streams and opening page: what the streams' 1 s heartbeats cost. The floor with the beat is the same broadcaster keeping the contract's heartbeat as well: it rewrites a copy of notch-web's state.json every 340 ms with a fresh wallMs, through the same write notch-web uses (fsx.Rewriter, no fsync). Its own work (less the floor) is what the contract's beat costs any host; notch-web less it is what notch-web does beyond the beat. The target is on the bare floor, as issue 34 sets it.\n")
	return nil
}

func namesOf(bins []struct{ name, path string }) []string {
	out := make([]string, len(bins))
	for i, b := range bins {
		out[i] = b.name
	}
	return out
}

// idleResult is one quiet spell.
type idleResult struct {
	Kind         string  `json:"kind"` // "idle"
	Process      string  `json:"process"`
	Run          int     `json:"run"`
	Rows         int     `json:"rows"`
	Tabs         int     `json:"tabs"`
	Seconds      float64 `json:"seconds"`
	CPUMsPerS    float64 `json:"cpuMsPerSecond"`
	TickMsPerS   float64 `json:"cpuTickMsPerSecond"`
	WakeupsPerS  float64 `json:"wakeupsPerSecond"`
	Renders      int64   `json:"renders"`
	Views        int64   `json:"views"`
	ViewsPerS    float64 `json:"viewsPerSecond"`
	OpeningBytes int     `json:"openingBytes"`
}

func pluckIdle(rs []*idleResult, get func(*idleResult) float64) []float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = get(r)
	}
	return v
}

func idleRow(w io.Writer, r *idleResult) {
	fmt.Fprintf(w, "| %d | %d | %s | %.2f | %.2f | %.1f | %d | %d |\n", r.Rows, r.Run, r.Process, r.CPUMsPerS, r.TickMsPerS, r.WakeupsPerS, r.Renders, r.Views)
}

// idleSettle is how long a run waits after the tabs open before the quiet
// spell: the opening renders, the first heartbeats, a GC.
const idleSettle = 3 * time.Second

// idleHost measures one notch-web with rows live rows and tabs streams,
// and with pane as its settings.json unless it is empty. It returns the
// state.json the host wrote as well.
func idleHost(ctx context.Context, bin, pane string, rows, tabs int, dur time.Duration) (*idleResult, []byte, error) {
	home, err := os.MkdirTemp("", "notch-load-idle-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "state", "agents-notch")
	if pane != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(pane+"\n"), 0o644); err != nil {
			return nil, nil, err
		}
	}
	h, err := startServer(ctx, bin, "--dsh-home", home)
	if err != nil {
		return nil, nil, err
	}
	defer h.stop()
	if err := h.post("/agents-notch/events", idleEvents(rows)); err != nil {
		return nil, nil, err
	}
	res, err := idleSpell(ctx, h, "notch-web", rows, tabs, dur)
	if err != nil {
		return nil, nil, err
	}
	st, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the state.json it wrote: %w", err)
	}
	return res, st, nil
}

func floorName(beat bool) string {
	if beat {
		return "floor+beat"
	}
	return "floor"
}

// idleFloor measures the floor with the same streams and opening page;
// with beat, it also rewrites a copy of stateJSON on the contract's beat.
func idleFloor(ctx context.Context, self string, rows, tabs, opening int, stateJSON []byte, beat bool, dur time.Duration) (*idleResult, error) {
	args := []string{"floor-server", "--addr", "127.0.0.1:0"}
	if beat {
		dir, err := os.MkdirTemp("", "notch-load-beat-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "state.json")
		if err := os.WriteFile(path, stateJSON, 0o644); err != nil {
			return nil, err
		}
		args = append(args, "--beat", path)
	}
	h, err := startProcess(ctx, self, args...)
	if err != nil {
		return nil, err
	}
	defer h.stop()
	frame, err := floorFrame(0, max(opening, 128))
	if err != nil {
		return nil, err
	}
	if err := h.publish(frame); err != nil {
		return nil, err
	}
	return idleSpell(ctx, h, floorName(beat), rows, tabs, dur)
}

func idleSpell(ctx context.Context, h *server, proc string, rows, tabs int, dur time.Duration) (*idleResult, error) {
	opening := newTracker(markNone, tabs, 0)
	clients, err := openStreams(ctx, h, tabs, newReaders(opening))
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(idleSettle):
	}
	h0, _ := h.healthCounters()
	s0, err := sampleProc(h.pid)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(dur):
	}
	s1, err := sampleProc(h.pid)
	if err != nil {
		return nil, err
	}
	secs := time.Since(t0).Seconds()
	h1, _ := h.healthCounters()
	r := &idleResult{
		Kind: "idle", Process: proc, Rows: rows, Tabs: tabs, Seconds: math.Round(secs*100) / 100,
		CPUMsPerS:    float64(s1.runNs-s0.runNs) / 1e6 / secs,
		TickMsPerS:   (s1.tickMs - s0.tickMs) / secs,
		WakeupsPerS:  float64(s1.switches-s0.switches) / secs,
		Renders:      h1.Renders - h0.Renders,
		Views:        h1.Views - h0.Views,
		OpeningBytes: int(math.Round(opening.bytesPerPatch())),
	}
	r.ViewsPerS = float64(r.Views) / secs
	return r, nil
}

// idleEvents opens rows sessions: a third working (a tool out), a third
// asking, a third done.
func idleEvents(rows int) string {
	var b strings.Builder
	tools := []string{"bash", "edit", "grep", "web_fetch"}
	for i := 0; i < rows; i++ {
		id := fmt.Sprintf("idle-%d", i)
		fmt.Fprintf(&b, `{"type":"session.opened","session":%q,"cwd":"/home/dev/src/project-%d"}`+"\n", id, i%5)
		fmt.Fprintf(&b, `{"type":"session.titled","session":%q,"title":"Refactor the module loader, part %d"}`+"\n", id, i)
		fmt.Fprintf(&b, `{"type":"turn.started","session":%q}`+"\n", id)
		fmt.Fprintf(&b, `{"type":"tool.started","session":%q,"tool":%q}`+"\n", id, tools[i%len(tools)])
		fmt.Fprintf(&b, `{"type":"context.tokens","session":%q,"tokens":%d}`+"\n", id, 4000*(i+1))
		switch i % 3 {
		case 1:
			fmt.Fprintf(&b, `{"type":"approval.requested","session":%q,"tool":"bash","reason":"writes outside the workspace"}`+"\n", id)
		case 2:
			fmt.Fprintf(&b, `{"type":"tool.ended","session":%q,"tool":%q,"outcome":"ok"}`+"\n", id, tools[i%len(tools)])
			fmt.Fprintf(&b, `{"type":"turn.ended","session":%q,"outcome":"completed"}`+"\n", id)
		}
	}
	return b.String()
}

// counters are /healthz's hub counters; views is absent from a notch-web
// that does not count them.
type counters struct {
	Renders int64 `json:"renders"`
	Views   int64 `json:"views"`
}

func (s *server) healthCounters() (counters, error) {
	var c counters
	res, err := s.http.Get(s.url + "/healthz")
	if err != nil {
		return c, err
	}
	defer res.Body.Close()
	return c, json.NewDecoder(res.Body).Decode(&c)
}

// procSample is a process's run time and context switches so far, summed
// over its threads (Linux /proc).
type procSample struct {
	runNs    int64   // schedstat: time on a CPU, ns
	tickMs   float64 // stat: utime+stime, at USER_HZ resolution
	switches int64   // voluntary + involuntary context switches
}

func sampleProc(pid int) (procSample, error) {
	var s procSample
	p, err := procStats(pid)
	if err != nil {
		return s, err
	}
	s.tickMs = p.cpuMs
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return s, err
	}
	for _, t := range tasks {
		if b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat")); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				ns, _ := strconv.ParseInt(f[0], 10, 64)
				s.runNs += ns
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "status"))
		if err != nil {
			continue // the thread has ended
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "voluntary_ctxt_switches:") || strings.HasPrefix(line, "nonvoluntary_ctxt_switches:") {
				n, _ := strconv.ParseInt(strings.TrimSpace(line[strings.IndexByte(line, ':')+1:]), 10, 64)
				s.switches += n
			}
		}
	}
	return s, nil
}
