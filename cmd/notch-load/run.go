//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/notch-web/notch-web/internal/fsx"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type options struct {
	bin     string
	streams []int
	changes int
	repeat  int
	posts   int
	out     string
	slow    bool
	follow  bool
	limit   time.Duration
	extra   []string
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
	fs.IntVar(&o.changes, "changes", 60, "changes driven per run")
	fs.IntVar(&o.repeat, "repeat", 3, "runs of each measurement; the table adds their median")
	fs.IntVar(&o.posts, "posts", 400, "settings POSTs for the write-rate measurement")
	fs.StringVar(&o.out, "out", "", "append the raw results here as JSON Lines")
	fs.BoolVar(&o.slow, "slow", true, "also run 100 streams with one client that never reads")
	fs.BoolVar(&o.follow, "follow", true, "also measure follow mode (a state.json renamed into place) with 100 streams")
	fs.DurationVar(&o.limit, "limit", 15*time.Minute, "stop everything after this long")
	fs.Var((*listFlag)(&o.extra), "server-arg", "pass this argument to each notch-web started (repeatable), e.g. -server-arg=--pprof=127.0.0.1:6060")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	for _, s := range strings.Split(streams, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 15000 {
			return nil, fmt.Errorf("-streams: %q is not a count in 1 … 15000", s)
		}
		o.streams = append(o.streams, n)
	}
	if o.changes < 5 || o.changes > 1000 {
		return nil, errors.New("-changes must be in 5 … 1000")
	}
	if o.repeat < 1 || o.repeat > 9 {
		return nil, errors.New("-repeat must be in 1 … 9")
	}
	if o.posts < 10 || o.posts > 10000 {
		return nil, errors.New("-posts must be in 10 … 10000")
	}
	return &o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
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
	rep := &report{w: stdout}
	rep.header(runtime.NumCPU())
	type job struct {
		streams int
		sc      scenario
	}
	var jobs []job
	for _, n := range o.streams {
		jobs = append(jobs, job{n, scenarioHost})
	}
	if o.follow {
		jobs = append(jobs, job{100, scenarioFollow})
	}
	if o.slow {
		// The same pace without the stalled client first: the baseline the
		// slow run's p99 is compared with.
		jobs = append(jobs, job{100, scenarioPaced}, job{100, scenarioSlow})
	}
	for _, j := range jobs {
		var runs []*result
		for r := 0; r < o.repeat; r++ {
			res, err := measure(ctx, o, j.streams, j.sc)
			if err != nil {
				return fmt.Errorf("%s with %d streams: %w", j.sc, j.streams, err)
			}
			runs = append(runs, res)
			rep.row(res, "")
			json.NewEncoder(raw).Encode(res)
		}
		if len(runs) > 1 {
			rep.row(median(runs), "median")
		}
	}
	rate, err := measurePosts(ctx, o)
	if err != nil {
		return fmt.Errorf("settings POSTs: %w", err)
	}
	json.NewEncoder(raw).Encode(rate)
	rep.posts(rate)
	return nil
}

// median is a result whose every figure is the median of the runs'.
func median(runs []*result) *result {
	m := *runs[0]
	pick := func(get func(*result) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = get(r)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	m.SSE.P50 = pick(func(r *result) float64 { return r.SSE.P50 })
	m.SSE.P99 = pick(func(r *result) float64 { return r.SSE.P99 })
	m.SSE.Max = pick(func(r *result) float64 { return r.SSE.Max })
	m.Poll.P99 = pick(func(r *result) float64 { return r.Poll.P99 })
	m.Missed = int(pick(func(r *result) float64 { return float64(r.Missed) }))
	m.Renders = pick(func(r *result) float64 { return r.Renders })
	m.BytesPerPatch = pick(func(r *result) float64 { return r.BytesPerPatch })
	m.CPUPerChange = pick(func(r *result) float64 { return r.CPUPerChange })
	m.RSSPerStream = pick(func(r *result) float64 { return r.RSSPerStream })
	m.DroppedAfter = pick(func(r *result) float64 { return r.DroppedAfter })
	m.Dropped = pick(func(r *result) float64 {
		if r.Dropped {
			return 1
		}
		return 0
	}) == 1
	return &m
}

// scenario names what one measurement drives.
type scenario string

const (
	scenarioHost   scenario = "host"   // events POSTed to a host
	scenarioFollow scenario = "follow" // a state.json renamed into place, mirrored by a follower
	scenarioSlow   scenario = "slow"   // host, plus one client that never reads
	scenarioPaced  scenario = "paced"  // host at the slow run's pace, without the stalled client
)

// result is one measurement.
type result struct {
	Scenario      scenario `json:"scenario"`
	Streams       int      `json:"streams"`
	Changes       int      `json:"changes"`
	Missed        int      `json:"missed"` // (change, client) pairs not delivered within 5 s
	SSE           stats    `json:"sse"`
	Poll          stats    `json:"poll340"`
	BytesPerPatch float64  `json:"bytesPerPatch"`
	CPUPerChange  float64  `json:"cpuMsPerChange"`
	IdleCPU       float64  `json:"idleCpuMsPerSecond"`
	RSSPerStream  float64  `json:"rssKiBPerStream"`
	RSSBase       float64  `json:"rssKiBBase"`
	Renders       float64  `json:"rendersPerChange"`
	DroppedAfter  float64  `json:"slowDroppedAfterMs,omitempty"`
	Dropped       bool     `json:"slowDropped,omitempty"`
}

// measure runs one scenario with n streams against a fresh notch-web.
func measure(ctx context.Context, o *options, n int, sc scenario) (*result, error) {
	home, err := os.MkdirTemp("", "notch-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	followed := filepath.Join(home, "other-host", "state.json")
	args := append([]string{"--dsh-home", home}, o.extra...)
	if sc == scenarioFollow {
		if err := writeFollowed(followed, 0, 8); err != nil {
			return nil, err
		}
		args = append(args, "--follow", followed)
	}
	h, err := startServer(ctx, o.bin, args...)
	if err != nil {
		return nil, err
	}
	defer h.stop()
	statePath := filepath.Join(home, "state", "agents-notch", "state.json")
	if sc == scenarioFollow {
		statePath = followed
	}
	res := &result{Scenario: sc, Streams: n, Changes: o.changes}

	drive := func(seq int) error { return nil }
	switch sc {
	case scenarioFollow:
		drive = func(seq int) error { return writeFollowed(followed, seq, 8) }
	default:
		if err := h.post("/agents-notch/events", boardEvents(8)); err != nil {
			return nil, err
		}
		drive = func(seq int) error {
			return h.post("/agents-notch/events", fmt.Sprintf(`{"type":"session.titled","session":"load-0","title":"change %s"}`, marker(seq)))
		}
	}
	if err := drive(0); err != nil {
		return nil, err
	}

	time.Sleep(300 * time.Millisecond)
	base, _ := procStats(h.pid)
	res.RSSBase = base.rssKiB

	tr := newTracker(n, o.changes)
	clients, err := openStreams(ctx, h, n, tr)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	var slow net.Conn
	if sc == scenarioSlow {
		if slow, err = openStalled(h); err != nil {
			return nil, err
		}
		defer slow.Close()
	}
	time.Sleep(time.Second)
	idle0, _ := procStats(h.pid)
	time.Sleep(2 * time.Second)
	idle1, _ := procStats(h.pid)
	res.IdleCPU = (idle1.cpuMs - idle0.cpuMs) / 2
	res.RSSPerStream = (idle1.rssKiB - base.rssKiB) / float64(n)

	poll := newPoller(statePath, o.changes)
	pctx, stopPoll := context.WithCancel(ctx)
	go poll.run(pctx)
	defer stopPoll()

	hb0 := tr.bytes(0)
	h0, _ := h.health()
	cpu0, _ := procStats(h.pid)
	phaseStart := time.Now()
	// The stalled client stopped reading when it connected; the clock for
	// its drop starts with the first change it does not read.
	stallStart := phaseStart
	for seq := 1; seq <= o.changes; seq++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		tr.sent(seq, time.Now())
		poll.sent(seq, time.Now())
		if err := drive(seq); err != nil {
			return nil, err
		}
		tr.wait(seq, 5*time.Second)
		if sc == scenarioSlow && !res.Dropped {
			if hh, err := h.health(); err == nil && hh.Drops > 0 {
				res.Dropped, res.DroppedAfter = true, float64(time.Since(stallStart).Milliseconds())
			}
		}
		// Wait long enough for the 340 ms poller to see every change, with
		// jitter so the changes do not line up with its phase.
		gap := 350*time.Millisecond + time.Duration(rand.Int64N(int64(350*time.Millisecond)))
		if sc == scenarioSlow || sc == scenarioPaced {
			gap = 100*time.Millisecond + time.Duration(rand.Int64N(int64(100*time.Millisecond)))
		}
		time.Sleep(gap)
	}
	cpu1, _ := procStats(h.pid)
	h1, _ := h.health()
	if sc == scenarioSlow && !res.Dropped {
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			if hh, err := h.health(); err == nil && hh.Drops > 0 {
				res.Dropped, res.DroppedAfter = true, float64(time.Since(stallStart).Milliseconds())
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	res.SSE, res.Missed = tr.stats()
	res.Poll = poll.stats()
	res.Renders = float64(h1.Renders-h0.Renders) / float64(o.changes)
	// All the server's CPU in the phase, per change: handling the POST, the
	// fold, the render, the fan-out and state.json. Heartbeats are not
	// subtracted: a stream that carries a frame skips its heartbeat, so the
	// idle rate does not apply while changes flow.
	res.CPUPerChange = (cpu1.cpuMs - cpu0.cpuMs) / float64(o.changes)
	res.BytesPerPatch = float64(tr.patchBytes(0, hb0)) / float64(o.changes)
	return res, nil
}

// marker is the unique, fixed-width text a change puts on the board.
func marker(seq int) string { return fmt.Sprintf("mk%06dz", seq) }

// boardEvents opens rows so the board carries a realistic frame.
func boardEvents(rows int) string {
	var b strings.Builder
	tools := []string{"bash", "edit", "grep", "web_fetch"}
	for i := 0; i < rows; i++ {
		id := fmt.Sprintf("load-%d", i)
		fmt.Fprintf(&b, `{"type":"session.opened","session":%q,"cwd":"/home/dev/src/project-%d"}`+"\n", id, i%3)
		fmt.Fprintf(&b, `{"type":"session.titled","session":%q,"title":"Refactor the module loader, part %d"}`+"\n", id, i)
		fmt.Fprintf(&b, `{"type":"turn.started","session":%q}`+"\n", id)
		fmt.Fprintf(&b, `{"type":"tool.started","session":%q,"tool":%q}`+"\n", id, tools[i%len(tools)])
		fmt.Fprintf(&b, `{"type":"context.tokens","session":%q,"tokens":%d}`+"\n", id, 40000*(i+1))
	}
	return b.String()
}

// writeFollowed renames a schema-4 document into place the way another host
// writes its state.json, with change seq's marker as a title.
func writeFollowed(path string, seq, rows int) error {
	return fsx.WriteFileAtomicNoSync(path, followedDoc(seq, rows))
}

// ---- the server under test ----

type server struct {
	url  string
	pid  int
	proc *os.Process
	http *http.Client
}

func startServer(ctx context.Context, bin string, args ...string) (*server, error) {
	cmd := execCommand(ctx, bin, append([]string{"--addr", "127.0.0.1:0", "--log-level", "error"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("%s printed no URL: %w", bin, err)
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil || !isLoopback(u.Hostname()) {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("refusing a non-loopback target %q", line)
	}
	go io.Copy(io.Discard, out)
	return &server{
		url: u.Scheme + "://" + u.Host, pid: cmd.Process.Pid, proc: cmd.Process,
		http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8}},
	}, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *server) stop() {
	_ = s.proc.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _, _ = s.proc.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.proc.Kill()
	}
}

func (s *server) post(path, body string) error {
	res, err := s.http.Post(s.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return fmt.Errorf("POST %s: %s %s", path, res.Status, data)
	}
	return nil
}

type health struct {
	Streams int   `json:"streams"`
	Renders int64 `json:"renders"`
	Drops   int64 `json:"drops"`
}

func (s *server) health() (health, error) {
	var h health
	res, err := s.http.Get(s.url + "/healthz")
	if err != nil {
		return h, err
	}
	defer res.Body.Close()
	return h, json.NewDecoder(res.Body).Decode(&h)
}

// ---- process stats (Linux /proc) ----

type pstat struct{ cpuMs, rssKiB float64 }

func procStats(pid int) (pstat, error) {
	var p pstat
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return p, err
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	if len(f) < 13 {
		return p, errors.New("short /proc stat")
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	p.cpuMs = (ut + st) * 1000 / clockTicks
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return p, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			p.rssKiB, _ = strconv.ParseFloat(strings.Fields(line)[1], 64)
		}
	}
	return p, nil
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100
