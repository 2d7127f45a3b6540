//go:build unix

package main

import (
	"fmt"
	"io"
	"math"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

type report struct{ w io.Writer }

func (r *report) header(cpus int) {
	model := "unknown CPU"
	if out, err := exec.Command("sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").Output(); err == nil {
		model = strings.TrimSpace(string(out))
	}
	fmt.Fprintf(r.w, "notch-load, %s, %s %s/%s, %d CPUs (%s)\n\n", time.Now().UTC().Format("2006-01-02"),
		runtime.Version(), runtime.GOOS, runtime.GOARCH, cpus, model)
	fmt.Fprintln(r.w, "| run | streams | SSE p50 ms | SSE p99 ms | SSE max ms | poll 340 ms p99 | poll ÷ SSE p99 | missed | renders/change | bytes/patch | CPU ms/change | RSS KiB/stream | slow client dropped after |")
	fmt.Fprintln(r.w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
}

func (r *report) row(x *result, label string) {
	poll, ratio := "—", "—"
	if x.Poll.N > 0 {
		poll = fmt.Sprintf("%.0f", x.Poll.P99)
		if x.SSE.P99 > 0 {
			ratio = fmt.Sprintf("%.0f×", x.Poll.P99/x.SSE.P99)
		}
	}
	renders := "—" // the floor renders nothing
	if x.Scenario != scenarioFloor {
		renders = fmt.Sprintf("%.2f", x.Renders)
	}
	slow := "—"
	if x.Scenario == scenarioSlow {
		slow = "not dropped"
		if x.Dropped {
			slow = fmt.Sprintf("%.1f s", x.DroppedAfter/1000)
		}
	}
	name := string(x.Scenario)
	if label != "" {
		name = "**" + name + " " + label + "**"
	}
	fmt.Fprintf(r.w, "| %s | %d | %.2f | %.2f | %.2f | %s | %s | %d | %s | %.0f | %.2f | %.1f | %s |\n",
		name, x.Streams, x.SSE.P50, x.SSE.P99, x.SSE.Max, poll, ratio, x.Missed, renders,
		x.BytesPerPatch, x.CPUPerChange, x.RSSPerStream, slow)
}

func (r *report) posts(p *postRate) {
	fmt.Fprintf(r.w, "\nsettings POST with the durable write (fsync + rename), %d posts: %.0f/s one at a time, %.0f/s four at a time\n",
		p.Posts, p.Sequential, p.Parallel)
}

// floorTable compares notch-web with the floor at each size of the sweep.
func (r *report) floorTable(sweep []*sizeRuns) {
	fmt.Fprint(r.w, `
### Event-triggered changes: notch-web against the floor

The floor is a bare SSE broadcaster in its own process (`+"`notch-load floor-server`"+`: net/http, one
goroutine and a queue of one per stream, a flush per frame; no render, no diff, no state), read by
the same clients. Each of its runs sends, for each change, one frame of exactly the bytes the
notch-web run before it sent per change (and its page to a stream that opens). Runs alternate
notch-web, floor, notch-web, floor, …; *ratio* is notch-web's median over the floor's; *pairs*
is each notch-web run over the floor run after it, and *stable to* is half their range relative
to the ratio.

| streams | notch-web p99 ms, runs | floor p99 ms, runs | notch-web p99 median | floor p99 median | p99 ratio | pairs | stable to | CPU ms/change, notch-web / floor | RSS KiB/stream, notch-web / floor | bytes/patch, notch-web / floor |
|---:|---|---|---:|---:|---:|---|---:|---|---|---|
`)
	for _, sz := range sweep {
		if len(sz.Floor) == 0 {
			continue
		}
		c := sz.comparison()
		nw, fl := pluck(sz.Host, p99Of), pluck(sz.Floor, p99Of)
		fmt.Fprintf(r.w, "| %d | %s | %s | %.2f | %.2f | **%s** | %s | %s | %.2f / %.2f (%s) | %.1f / %.1f | %.0f / %.0f |\n",
			sz.Streams, list(nw, 2), list(fl, 2), medianOf(nw), medianOf(fl), times(c.P99.Ratio), pairs(c.P99), spread(c.P99),
			medianOf(pluck(sz.Host, cpuOf)), medianOf(pluck(sz.Floor, cpuOf)), times(c.CPUPerChange.Ratio),
			medianOf(pluck(sz.Host, rssOf)), medianOf(pluck(sz.Floor, rssOf)),
			medianOf(pluck(sz.Host, func(x *result) float64 { return x.BytesPerPatch })),
			medianOf(pluck(sz.Floor, func(x *result) float64 { return x.BytesPerPatch })))
	}
}

// settingsTable reports the changes driven by settings POSTs, each run and
// the medians, beside the durable write's own distribution.
func (r *report) settingsTable(sweep []*sizeRuns) {
	fmt.Fprint(r.w, `
### Settings-triggered changes (notch-web)

After its events, each notch-web run of the sweep drives as many changes through
`+"`POST /agents-notch/settings`"+` on the same open streams, 100–200 ms apart: each sets a new holdMs,
which every board carries as data-hold-ms, and is written to settings.json durably before the
fan-out. *POST* is the request's round trip. *fsync probe* is not the server's own figure: it is
the load tool timing the same durable write (internal/fsx WriteFileAtomic: a temporary file
written and fsynced, renamed into place, the folder fsynced) of a file the size of
settings.json, in its folder, right after the phase and at its pace (100–200 ms apart: after an
idle spell the write costs about twice what it does back to back) — what the file system
charges for that write. *bound* is the probe's p99 plus the same run's event-triggered p99; the
target is change → patch p99 within it.

| run | streams | change → patch p50 ms | p99 ms | max ms | POST p99 ms | fsync probe p50 ms | fsync probe p99 ms | event p99 ms | bound ms | within | missed | renders/change | bytes/patch | CPU ms/change |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|
`)
	for _, sz := range sweep {
		var runs []*settingsResult
		for _, h := range sz.Host {
			if h.Settings != nil {
				runs = append(runs, h.Settings)
				r.settingsRow("settings", sz.Streams, h.Settings)
			}
		}
		if len(runs) > 1 {
			r.settingsRow("**settings median**", sz.Streams, medianSettings(runs))
		}
	}
}

func (r *report) settingsRow(name string, n int, s *settingsResult) {
	bound := s.Fsync.P99 + s.EventP99
	within := "yes"
	if s.SSE.P99 > bound {
		within = "**no**"
	}
	fmt.Fprintf(r.w, "| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %d | %.2f | %.0f | %.2f |\n",
		name, n, s.SSE.P50, s.SSE.P99, s.SSE.Max, s.Post.P99, s.Fsync.P50, s.Fsync.P99, s.EventP99, bound, within,
		s.Missed, s.Renders, s.BytesPerPatch, s.CPUPerChange)
}

// medianSettings is a settings result whose every figure is the median of
// the runs'.
func medianSettings(runs []*settingsResult) *settingsResult {
	m := *runs[0]
	pick := func(get func(*settingsResult) float64) float64 {
		v := make([]float64, len(runs))
		for i, s := range runs {
			v[i] = get(s)
		}
		return medianOf(v)
	}
	m.SSE.P50 = pick(func(s *settingsResult) float64 { return s.SSE.P50 })
	m.SSE.P99 = pick(func(s *settingsResult) float64 { return s.SSE.P99 })
	m.SSE.Max = pick(func(s *settingsResult) float64 { return s.SSE.Max })
	m.Post.P99 = pick(func(s *settingsResult) float64 { return s.Post.P99 })
	m.Fsync.P50 = pick(func(s *settingsResult) float64 { return s.Fsync.P50 })
	m.Fsync.P99 = pick(func(s *settingsResult) float64 { return s.Fsync.P99 })
	m.EventP99 = pick(func(s *settingsResult) float64 { return s.EventP99 })
	m.Missed = int(pick(func(s *settingsResult) float64 { return float64(s.Missed) }))
	m.Renders = pick(func(s *settingsResult) float64 { return s.Renders })
	m.BytesPerPatch = pick(func(s *settingsResult) float64 { return s.BytesPerPatch })
	m.CPUPerChange = pick(func(s *settingsResult) float64 { return s.CPUPerChange })
	return &m
}

// targets checks issue 12's targets against the medians of what ran; a
// target whose runs were not part of this sweep is left out.
func (r *report) targets(sweep []*sizeRuns, paced, slow []*result) {
	var rows [][2]string
	add := func(target, result string) { rows = append(rows, [2]string{target, result}) }
	for _, sz := range sweep {
		p99 := pluck(sz.Host, p99Of)
		med := medianOf(p99)
		switch sz.Streams {
		case 1000:
			if len(sz.Floor) > 0 {
				c := sz.comparison()
				add("1,000 tabs: p99 ≤ 1.2× the floor's", fmt.Sprintf("%s: %s (pairs %s, stable to %s)", verdict(c.P99.Ratio <= 1.2), times(c.P99.Ratio), pairs(c.P99), spread(c.P99)))
			}
			add("1,000 tabs: p99 ≤ 25 ms", fmt.Sprintf("%s: %.1f ms (runs %s)", verdict(med <= 25), med, list(p99, 1)))
		case 10000:
			add("10,000 tabs: p99 ≤ 100 ms", fmt.Sprintf("%s: %.1f ms (runs %s)", verdict(med <= 100), med, list(p99, 1)))
			rss := pluck(sz.Host, rssOf)
			add("10,000 tabs: RSS per idle stream ≤ 30 KiB", fmt.Sprintf("%s: %.1f KiB (runs %s)", verdict(medianOf(rss) <= 30), medianOf(rss), list(rss, 1)))
		}
	}
	var within []string
	allWithin := true
	for _, sz := range sweep {
		var runs []*settingsResult
		for _, h := range sz.Host {
			if h.Settings != nil {
				runs = append(runs, h.Settings)
			}
		}
		if len(runs) == 0 {
			continue
		}
		m := medianSettings(runs)
		bound := m.Fsync.P99 + m.EventP99
		allWithin = allWithin && m.SSE.P99 <= bound
		rel := "≤"
		if m.SSE.P99 > bound {
			rel = ">"
		}
		within = append(within, fmt.Sprintf("%s: %.1f %s %.1f + %.1f ms", streamCount(sz.Streams), m.SSE.P99, rel, m.Fsync.P99, m.EventP99))
	}
	if len(within) > 0 {
		add("settings-triggered p99 ≤ the durable write's p99 + the event-triggered p99", verdict(allWithin)+": "+strings.Join(within, "; "))
	}
	var renders []string
	one := true
	for _, sz := range sweep {
		v := medianOf(pluck(sz.Host, func(x *result) float64 { return x.Renders }))
		one = one && v == 1
		renders = append(renders, fmt.Sprintf("%s: %.2f", streamCount(sz.Streams), v))
	}
	if len(renders) > 0 {
		add("renders per change = 1", verdict(one)+": "+strings.Join(renders, "; "))
	}
	var bytesSame []string
	same, compared := true, false
	for _, sz := range sweep {
		for i := range sz.Floor {
			compared = true
			nb, fb := sz.Host[i].BytesPerPatch, sz.Floor[i].BytesPerPatch
			same = same && math.Abs(nb-fb) <= 0.5 // the floor sends the mean, rounded
			if i == 0 {
				bytesSame = append(bytesSame, fmt.Sprintf("%s: %.0f / %.0f", streamCount(sz.Streams), nb, fb))
			}
		}
	}
	if compared {
		add("the floor sends notch-web's bytes per change (notch-web / floor)", verdict(same)+": "+strings.Join(bytesSame, "; "))
	}
	if len(slow) > 0 {
		// A run that never dropped its stalled reader counts as the
		// slowest, so it can only raise the median.
		var drop []float64
		var each []string
		for _, x := range slow {
			if x.Dropped {
				drop, each = append(drop, x.DroppedAfter/1000), append(each, fmt.Sprintf("%.1f s", x.DroppedAfter/1000))
			} else {
				drop, each = append(drop, math.Inf(1)), append(each, "not dropped")
			}
		}
		if m := medianOf(drop); math.IsInf(m, 1) {
			add("a stalled reader is dropped ≤ 10 s", fmt.Sprintf("**missed**: not dropped (runs %s; a run of few changes may end before the stalled socket's buffers fill)", strings.Join(each, ", ")))
		} else {
			add("a stalled reader is dropped ≤ 10 s", fmt.Sprintf("%s: %.1f s (runs %s)", verdict(m <= 10), m, strings.Join(each, ", ")))
		}
		if len(paced) > 0 {
			ps, pp := medianOf(pluck(slow, p99Of)), medianOf(pluck(paced, p99Of))
			add("… without moving the others' p99 (slow run ÷ the paced run without it)",
				fmt.Sprintf("%.2f ms ÷ %.2f ms = %s (paced runs %s, slow runs %s)", ps, pp, times(ps/pp), list(pluck(paced, p99Of), 1), list(pluck(slow, p99Of), 1)))
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprint(r.w, "\n### Targets (issue 12), on the medians\n\n| target | result |\n|---|---|\n")
	for _, row := range rows {
		fmt.Fprintf(r.w, "| %s | %s |\n", row[0], row[1])
	}
}

// streamCount is "1 stream" or "n streams".
func streamCount(n int) string {
	if n == 1 {
		return "1 stream"
	}
	return fmt.Sprintf("%d streams", n)
}

// list prints values with prec decimals, comma-separated.
func list(v []float64, prec int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.*f", prec, x)
	}
	return strings.Join(s, ", ")
}

func times(x float64) string {
	if x <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", x)
}

// pairs is the range of the pair ratios.
func pairs(c ratioSummary) string {
	switch c.Pairs {
	case 0:
		return "—"
	case 1:
		return times(c.PairMin)
	}
	return fmt.Sprintf("%.2f–%.2f×", c.PairMin, c.PairMax)
}

// spread says how stable the ratio is, or that one pair cannot say.
func spread(c ratioSummary) string {
	if c.Pairs < 2 {
		return "one pair: unknown"
	}
	return fmt.Sprintf("±%.0f %%", c.Spread*100)
}
