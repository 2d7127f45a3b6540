//go:build unix

package main

import (
	"fmt"
	"io"
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
	fmt.Fprintln(r.w, "| run | streams | SSE p50 ms | SSE p99 ms | SSE max ms | poll 340 ms p99 | p99 ratio | missed | renders/change | bytes/patch | CPU ms/change | RSS KiB/stream | slow client dropped after |")
	fmt.Fprintln(r.w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
}

func (r *report) row(x *result, label string) {
	ratio := "—"
	if x.SSE.P99 > 0 && x.Poll.N > 0 {
		ratio = fmt.Sprintf("%.0f×", x.Poll.P99/x.SSE.P99)
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
	fmt.Fprintf(r.w, "| %s | %d | %.2f | %.2f | %.2f | %.0f | %s | %d | %.2f | %.0f | %.2f | %.1f | %s |\n",
		name, x.Streams, x.SSE.P50, x.SSE.P99, x.SSE.Max, x.Poll.P99, ratio, x.Missed, x.Renders,
		x.BytesPerPatch, x.CPUPerChange, x.RSSPerStream, slow)
}

func (r *report) posts(p *postRate) {
	fmt.Fprintf(r.w, "\nsettings POST with the durable write (fsync + rename), %d posts: %.0f/s one at a time, %.0f/s four at a time\n",
		p.Posts, p.Sequential, p.Parallel)
}
