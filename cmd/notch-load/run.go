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
	"runtime"
	"strconv"
	"strings"
	"time"
)

type options struct {
	bin      string
	self     string // this binary, started as the floor
	streams  []int
	changes  int
	runs     int
	posts    int
	fsyncs   int
	out      string
	floor    bool
	settings bool
	slow     bool
	follow   bool
	limit    time.Duration
	extra    []string
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	var o options
	var streams string
	fs := flag.NewFlagSet("notch-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.bin, "bin", "bin/notch-web", "the notch-web binary to start for each run")
	fs.StringVar(&streams, "streams", "1,100,1000,10000", "comma-separated numbers of open streams to sweep")
	fs.StringVar(&streams, "sizes", "1,100,1000,10000", "same as -streams")
	fs.IntVar(&o.changes, "changes", 60, "changes driven per run (and per settings phase)")
	fs.IntVar(&o.runs, "runs", 3, "runs of each measurement; the tables add their median")
	fs.IntVar(&o.runs, "repeat", 3, "same as -runs")
	fs.BoolVar(&o.floor, "floor", true, "follow each notch-web run of the sweep with a run of the floor (a bare SSE broadcaster) and report the ratio of their medians")
	fs.BoolVar(&o.settings, "settings", true, "after each sweep run's events, drive as many changes through POST /agents-notch/settings (the durable write) and report them apart")
	fs.IntVar(&o.fsyncs, "fsync-samples", 60, "durable writes the load tool times itself after each settings phase, beside it, at the phase's pace")
	fs.IntVar(&o.posts, "posts", 400, "settings POSTs for the write-rate measurement")
	fs.StringVar(&o.out, "out", "", "append the raw results here as JSON Lines")
	fs.BoolVar(&o.slow, "slow", true, "also run 100 streams with one client that never reads")
	fs.BoolVar(&o.follow, "follow", true, "also measure follow mode (a state.json renamed into place) with 100 streams")
	fs.DurationVar(&o.limit, "limit", 45*time.Minute, "stop everything after this long")
	fs.Var((*listFlag)(&o.extra), "server-arg", "pass this argument to each notch-web started (repeatable), e.g. -server-arg=--pprof=127.0.0.1:6060")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: notch-load [flags]\n       notch-load floor-server [-addr 127.0.0.1:0]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, s := range strings.Split(streams, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 15000 {
			return nil, fmt.Errorf("-streams: %q is not a count in 1 … 15000", s)
		}
		o.streams = append(o.streams, n)
	}
	// holdValue keeps settings changes distinct up to 1000.
	if o.changes < 5 || o.changes > 1000 {
		return nil, errors.New("-changes must be in 5 … 1000")
	}
	if o.runs < 1 || o.runs > 9 {
		return nil, errors.New("-runs must be in 1 … 9")
	}
	if o.posts < 10 || o.posts > 10000 {
		return nil, errors.New("-posts must be in 10 … 10000")
	}
	if o.fsyncs < 10 || o.fsyncs > 10000 {
		return nil, errors.New("-fsync-samples must be in 10 … 10000")
	}
	return &o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "floor-server" {
		return runFloor(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "hooks" {
		return runHooks(ctx, args[1:], stdout, stderr) // hooks.go
	}
	if len(args) > 0 && args[0] == "idle" {
		return runIdle(ctx, args[1:], stdout, stderr) // idle.go
	}
	if len(args) > 0 && args[0] == "mesh" {
		return runMesh(ctx, args[1:], stdout, stderr) // mesh.go
	}
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if o.self, err = os.Executable(); err != nil {
		return fmt.Errorf("finding this binary to start the floor: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, o.limit)
	defer cancel()
	var raw io.Writer = io.Discard
	if o.out != "" {
		f, err := os.OpenFile(o.out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		raw = f
	}
	enc := json.NewEncoder(raw)
	rep := &report{w: stdout}
	rep.header(runtime.NumCPU())

	// The sweep: notch-web and the floor alternately at each size, so slow
	// drifts of a shared machine fall on both.
	var sweep []*sizeRuns
	for _, n := range o.streams {
		sz := &sizeRuns{Streams: n}
		for r := 0; r < o.runs; r++ {
			nw, err := measure(ctx, o, n, scenarioHost, nil)
			if err != nil {
				return fmt.Errorf("%s with %d streams: %w", scenarioHost, n, err)
			}
			rep.row(nw, "")
			_ = enc.Encode(nw)
			sz.Host = append(sz.Host, nw)
			if !o.floor {
				continue
			}
			// The floor sends what this notch-web run sent: its page to a
			// stream that opens, and its bytes per change.
			fb := floorBytes{initial: int(math.Round(nw.InitialBytes)), change: int(math.Round(nw.BytesPerPatch))}
			fl, err := measure(ctx, o, n, scenarioFloor, &fb)
			if err != nil {
				return fmt.Errorf("%s with %d streams: %w", scenarioFloor, n, err)
			}
			rep.row(fl, "")
			_ = enc.Encode(fl)
			sz.Floor = append(sz.Floor, fl)
		}
		if o.runs > 1 {
			rep.row(median(sz.Host), "median")
			if o.floor {
				rep.row(median(sz.Floor), "median")
			}
		}
		sweep = append(sweep, sz)
	}

	var extra []scenario
	if o.follow {
		extra = append(extra, scenarioFollow)
	}
	if o.slow {
		// The same pace without the stalled client first: the baseline the
		// slow run's p99 is compared with.
		extra = append(extra, scenarioPaced, scenarioSlow)
	}
	byScenario := map[scenario][]*result{}
	for _, sc := range extra {
		for r := 0; r < o.runs; r++ {
			res, err := measure(ctx, o, 100, sc, nil)
			if err != nil {
				return fmt.Errorf("%s with 100 streams: %w", sc, err)
			}
			rep.row(res, "")
			_ = enc.Encode(res)
			byScenario[sc] = append(byScenario[sc], res)
		}
		if o.runs > 1 {
			rep.row(median(byScenario[sc]), "median")
		}
	}

	rate, err := measurePosts(ctx, o)
	if err != nil {
		return fmt.Errorf("settings POSTs: %w", err)
	}
	_ = enc.Encode(rate)
	rep.posts(rate)

	if o.floor {
		rep.floorTable(sweep)
		for _, sz := range sweep {
			_ = enc.Encode(sz.comparison())
		}
	}
	if o.settings {
		rep.settingsTable(sweep)
	}
	rep.targets(sweep, byScenario[scenarioPaced], byScenario[scenarioSlow])
	return nil
}

// sizeRuns are the sweep's runs at one number of streams.
type sizeRuns struct {
	Streams int
	Host    []*result
	Floor   []*result
}

// comparison is notch-web against the floor at one size, as the raw
// output records it.
type comparison struct {
	Kind         string       `json:"kind"`
	Streams      int          `json:"streams"`
	P99          ratioSummary `json:"p99"`
	CPUPerChange ratioSummary `json:"cpuMsPerChange"`
	RSSPerStream ratioSummary `json:"rssKiBPerStream"`
}

func (s *sizeRuns) comparison() comparison {
	return comparison{
		Kind: "floor-ratio", Streams: s.Streams,
		P99:          compareRuns(pluck(s.Host, p99Of), pluck(s.Floor, p99Of)),
		CPUPerChange: compareRuns(pluck(s.Host, cpuOf), pluck(s.Floor, cpuOf)),
		RSSPerStream: compareRuns(pluck(s.Host, rssOf), pluck(s.Floor, rssOf)),
	}
}

func p99Of(r *result) float64 { return r.SSE.P99 }
func cpuOf(r *result) float64 { return r.CPUPerChange }
func rssOf(r *result) float64 { return r.RSSPerStream }

// pluck is one figure of every run, in run order.
func pluck(runs []*result, get func(*result) float64) []float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = get(r)
	}
	return v
}

// median is a result whose every figure is the median of the runs'.
func median(runs []*result) *result {
	m := *runs[0]
	pick := func(get func(*result) float64) float64 { return medianOf(pluck(runs, get)) }
	m.SSE.P50 = pick(func(r *result) float64 { return r.SSE.P50 })
	m.SSE.P99 = pick(p99Of)
	m.SSE.Max = pick(func(r *result) float64 { return r.SSE.Max })
	m.Poll.P99 = pick(func(r *result) float64 { return r.Poll.P99 })
	m.Missed = int(pick(func(r *result) float64 { return float64(r.Missed) }))
	m.Renders = pick(func(r *result) float64 { return r.Renders })
	m.BytesPerPatch = pick(func(r *result) float64 { return r.BytesPerPatch })
	m.InitialBytes = pick(func(r *result) float64 { return r.InitialBytes })
	m.CPUPerChange = pick(cpuOf)
	m.ClientCPUPerChange = pick(func(r *result) float64 { return r.ClientCPUPerChange })
	m.RSSPerStream = pick(rssOf)
	m.DroppedAfter = pick(func(r *result) float64 { return r.DroppedAfter })
	m.Dropped = pick(func(r *result) float64 {
		if r.Dropped {
			return 1
		}
		return 0
	}) == 1
	m.Settings = nil
	m.LastArrival = nil
	return &m
}
