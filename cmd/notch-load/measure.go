//go:build unix

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
)

// scenario names what one measurement drives.
type scenario string

const (
	scenarioHost   scenario = "host"   // events POSTed to a host
	scenarioFloor  scenario = "floor"  // frames POSTed to the floor, a bare broadcaster
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
	BytesPerPatch float64  `json:"bytesPerPatch"` // per patch-elements frame during the changes
	InitialBytes  float64  `json:"initialBytes"`  // the frame a stream gets when it opens
	CPUPerChange  float64  `json:"cpuMsPerChange"`
	// ClientCPUPerChange is the load tool's own CPU per change (its
	// readers, mostly): the other half of what the two cores do.
	ClientCPUPerChange float64 `json:"clientCpuMsPerChange"`
	// LastArrival is each change's time to its last client, ms.
	LastArrival  []float64 `json:"lastArrivalMs,omitempty"`
	IdleCPU      float64   `json:"idleCpuMsPerSecond"`
	RSSPerStream float64   `json:"rssKiBPerStream"`
	RSSBase      float64   `json:"rssKiBBase"`
	Renders      float64   `json:"rendersPerChange"`
	DroppedAfter float64   `json:"slowDroppedAfterMs,omitempty"`
	Dropped      bool      `json:"slowDropped,omitempty"`
	// Settings is the same run's settings phase (host runs of the sweep).
	Settings *settingsResult `json:"settings,omitempty"`
}

// settingsResult is one run's changes driven by POST /agents-notch/settings,
// each a durable write of settings.json before the fan-out.
type settingsResult struct {
	Changes       int     `json:"changes"`
	Missed        int     `json:"missed"`
	SSE           stats   `json:"sse"`  // change → patch at every client
	Post          stats   `json:"post"` // the POST's round trip, durable write included
	BytesPerPatch float64 `json:"bytesPerPatch"`
	Renders       float64 `json:"rendersPerChange"`
	CPUPerChange  float64 `json:"cpuMsPerChange"`
	// Fsync is the load tool's own timing of the durable write (see
	// fsyncProbe), taken right after the phase in settings.json's folder.
	Fsync      stats `json:"fsyncProbe"`
	FsyncBytes int   `json:"fsyncProbeBytes"`
	// EventP99 is the same run's event-triggered p99: the target is
	// SSE.P99 ≤ Fsync.P99 + EventP99.
	EventP99 float64 `json:"eventP99"`
}

// floorBytes is what a floor run sends: the sizes notch-web's run sent.
type floorBytes struct{ initial, change int }

// jitter is a gap in [lo, 2·lo).
func jitter(lo time.Duration) time.Duration { return lo + time.Duration(rand.Int64N(int64(lo))) }

// The gaps between changes. 350 ms and more lets the 340 ms poller see every
// change, with jitter so the changes do not line up with its phase; the
// paced gap is for runs without the poller's figure at stake.
func pollGap() time.Duration  { return jitter(350 * time.Millisecond) }
func pacedGap() time.Duration { return jitter(100 * time.Millisecond) }

// measure runs one scenario with n streams against a fresh notch-web, or a
// fresh floor sending fb's sizes.
func measure(ctx context.Context, o *options, n int, sc scenario, fb *floorBytes) (*result, error) {
	home, err := os.MkdirTemp("", "notch-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	res := &result{Scenario: sc, Streams: n, Changes: o.changes}
	statePath := filepath.Join(home, "state", "agents-notch", "state.json")
	var h *server
	var drive func(seq int) error
	switch sc {
	case scenarioFloor:
		frames := make([][]byte, o.changes+1)
		frames[0], err = floorFrame(0, fb.initial)
		for seq := 1; seq <= o.changes && err == nil; seq++ {
			frames[seq], err = floorFrame(seq, fb.change)
		}
		if err != nil {
			return nil, err
		}
		if h, err = startFloor(ctx, o.self); err != nil {
			return nil, err
		}
		drive = func(seq int) error { return h.publish(frames[seq]) }
	case scenarioFollow:
		followed := filepath.Join(home, "other-host", "state.json")
		if err := writeFollowed(followed, 0, 8); err != nil {
			return nil, err
		}
		args := append([]string{"--dsh-home", home, "--follow", followed}, o.extra...)
		if h, err = startServer(ctx, o.bin, args...); err != nil {
			return nil, err
		}
		statePath = followed
		drive = func(seq int) error { return writeFollowed(followed, seq, 8) }
	default:
		if h, err = startServer(ctx, o.bin, append([]string{"--dsh-home", home}, o.extra...)...); err != nil {
			return nil, err
		}
		if err := h.post("/agents-notch/events", boardEvents(8)); err != nil {
			h.stop()
			return nil, err
		}
		drive = func(seq int) error {
			return h.post("/agents-notch/events", fmt.Sprintf(`{"type":"session.titled","session":"load-0","title":"change %s"}`, marker(seq)))
		}
	}
	defer h.stop()
	// Change 0 is the page every stream gets when it opens.
	if err := drive(0); err != nil {
		return nil, err
	}

	time.Sleep(300 * time.Millisecond)
	base, _ := procStats(h.pid)
	res.RSSBase = base.rssKiB

	opening := newTracker(markNone, n, 0)
	rd := newReaders(opening)
	clients, err := openStreams(ctx, h, n, rd)
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
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
	res.InitialBytes = opening.bytesPerPatch()

	tr := newTracker(markTitle, n, o.changes)
	rd.phase(tr)
	var poll *poller
	pctx, stopPoll := context.WithCancel(ctx)
	defer stopPoll()
	if sc != scenarioFloor { // the floor writes no state.json
		poll = newPoller(statePath, o.changes)
		go poll.run(pctx)
	}
	gap := pollGap
	if sc == scenarioSlow || sc == scenarioPaced {
		gap = pacedGap
	}

	h0, _ := h.health()
	cpu0, _ := procStats(h.pid)
	self0, _ := procStats(os.Getpid())
	// The stalled client stopped reading when it connected; the clock for
	// its drop starts with the first change it does not read.
	stallStart := time.Now()
	checkDrop := func() {
		if sc == scenarioSlow && !res.Dropped {
			if hh, err := h.health(); err == nil && hh.Drops > 0 {
				res.Dropped, res.DroppedAfter = true, float64(time.Since(stallStart).Milliseconds())
			}
		}
	}
	_, err = runChanges(ctx, tr, o.changes, drive, gap, func(seq int, at time.Time) {
		if poll != nil {
			poll.sent(seq, at)
		}
	}, checkDrop)
	if err != nil {
		return nil, err
	}
	cpu1, _ := procStats(h.pid)
	self1, _ := procStats(os.Getpid())
	h1, _ := h.health()
	stopPoll()
	if sc == scenarioSlow && !res.Dropped {
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) && !res.Dropped {
			time.Sleep(100 * time.Millisecond)
			checkDrop()
		}
	}
	res.SSE, res.Missed = tr.stats()
	res.LastArrival = tr.lastArrivals()
	if poll != nil {
		res.Poll = poll.stats()
	}
	res.Renders = float64(h1.Renders-h0.Renders) / float64(o.changes)
	// All the server's CPU in the phase, per change: handling the POST, the
	// fold, the render, the fan-out and state.json. Heartbeats are not
	// subtracted: a stream that carries a frame skips its heartbeat, so the
	// idle rate does not apply while changes flow.
	res.CPUPerChange = (cpu1.cpuMs - cpu0.cpuMs) / float64(o.changes)
	res.ClientCPUPerChange = (self1.cpuMs - self0.cpuMs) / float64(o.changes)
	res.BytesPerPatch = tr.bytesPerPatch()

	if sc == scenarioHost && o.settings {
		if res.Settings, err = settingsPhase(ctx, o, h, rd, n, home); err != nil {
			return nil, fmt.Errorf("settings phase: %w", err)
		}
		res.Settings.EventP99 = res.SSE.P99
	}
	return res, nil
}

// runChanges drives changes 1 … changes, each once every client has the
// one before (or 5 s passed), gap() apart. sent hears when each change
// leaves, after each when it has arrived. It returns each drive's round
// trip in milliseconds.
func runChanges(ctx context.Context, tr *tracker, changes int, drive func(seq int) error, gap func() time.Duration,
	sent func(seq int, at time.Time), after func()) ([]float64, error) {
	trips := make([]float64, 0, changes)
	for seq := 1; seq <= changes; seq++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		at := time.Now()
		tr.sent(seq, at)
		sent(seq, at)
		if err := drive(seq); err != nil {
			return nil, err
		}
		trips = append(trips, float64(time.Since(at).Nanoseconds())/1e6)
		tr.wait(seq, 5*time.Second)
		after()
		time.Sleep(gap())
	}
	return trips, nil
}

// settingsPhase drives changes through POST /agents-notch/settings on the
// streams a host run opened: each sets a new holdMs, which the board
// carries as data-hold-ms, after the durable write of settings.json.
func settingsPhase(ctx context.Context, o *options, h *server, rd *readers, n int, home string) (*settingsResult, error) {
	tr := newTracker(markHold, n, o.changes)
	rd.phase(tr)
	h0, _ := h.health()
	cpu0, _ := procStats(h.pid)
	trips, err := runChanges(ctx, tr, o.changes, func(seq int) error {
		return h.post("/agents-notch/settings", fmt.Sprintf(`{"holdMs":%d}`, holdValue(seq)))
	}, pacedGap, func(int, time.Time) {}, func() {})
	if err != nil {
		return nil, err
	}
	cpu1, _ := procStats(h.pid)
	h1, _ := h.health()
	sr := &settingsResult{Changes: o.changes}
	sr.SSE, sr.Missed = tr.stats()
	sr.Post = summarize(trips)
	sr.BytesPerPatch = tr.bytesPerPatch()
	sr.Renders = float64(h1.Renders-h0.Renders) / float64(o.changes)
	sr.CPUPerChange = (cpu1.cpuMs - cpu0.cpuMs) / float64(o.changes)
	sr.Fsync, sr.FsyncBytes, err = fsyncProbe(filepath.Join(home, "state", "agents-notch"), o.fsyncs, pacedGap)
	if err != nil {
		return nil, fmt.Errorf("timing the durable write: %w", err)
	}
	return sr, nil
}

// fsyncProbe times, from the load tool, the durable write notch-web's
// settings store makes: fsx.WriteFileAtomic (a temporary file written and
// fsynced, renamed over the target, the directory fsynced) of a file the
// size of settings.json, in settings.json's own folder, samples times,
// gap() apart: the phase's own pace, because a durable write after an idle
// spell costs about twice one right after another on this machine (p50
// 1.0 against 0.5 ms). The server does nothing meanwhile; its streams stay
// open. It returns the distribution and the file's size.
func fsyncProbe(dir string, samples int, gap func() time.Duration) (stats, int, error) {
	size := 256
	if fi, err := os.Stat(filepath.Join(dir, "settings.json")); err == nil && fi.Size() > 0 {
		size = int(fi.Size())
	}
	data := []byte(strings.Repeat("x", size-1) + "\n")
	path := filepath.Join(dir, "notch-load-fsync-probe.json")
	defer os.Remove(path)
	ms := make([]float64, 0, samples)
	for i := 0; i < samples; i++ {
		time.Sleep(gap())
		start := time.Now()
		if err := fsx.WriteFileAtomic(path, data); err != nil {
			return stats{}, 0, err
		}
		ms = append(ms, float64(time.Since(start).Nanoseconds())/1e6)
	}
	return summarize(ms), size, nil
}

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
