package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/launch"
)

// launchHelper, as the test binary's first argument, makes it a stand-in
// agent for BenchmarkLaunchToRow: it sends Claude Code's SessionStart for
// the session its prompt names to the host at its second argument, then
// stays as an agent at its prompt does.
const launchHelper = "notch-web-launch-bench-agent"

func TestMain(m *testing.M) {
	if len(os.Args) > 4 && os.Args[1] == launchHelper {
		body, _ := json.Marshal(map[string]string{"session_id": os.Args[4], "hook_event_name": "SessionStart", "source": "startup", "cwd": "/src/bench"})
		_, _ = http.Post(os.Args[2]+"/agents-notch/hooks/claude-code", "application/json", bytes.NewReader(body))
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// BenchmarkLaunchToRow: POST /agents-notch/launch → the row on the board,
// with a stand-in agent that sends its first hook as soon as it runs:
// host-p50/p99 is the route's own part (checks, tmux new-window), row-p50/p99
// the whole way to the row, agent-p50/p99 what lies between (the agent's
// own start and its first hook). A real agent's start dominates (seconds:
// conformance TestLaunch logs each).
func BenchmarkLaunchToRow(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed")
	}
	e := newEnv(b, envOpts{})
	tmp, err := os.MkdirTemp("", "nb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(tmp) })
	tmp, _ = filepath.EvalSymlinks(tmp)
	socket := filepath.Join(tmp, "tmux.sock")
	b.Cleanup(func() { _ = exec.Command("tmux", "-S", socket, "kill-server").Run() })
	// The session keeps a window of its own, so that killing a sample's
	// pane never ends the server under the next start.
	if out, err := exec.Command("tmux", "-S", socket, "new-session", "-d", "-s", launch.Session, "sleep", "3600").CombinedOutput(); err != nil {
		b.Fatalf("tmux: %v %s", err, out)
	}
	path := filepath.Join(tmp, launch.FileName)
	if err := launch.Write(path, launch.File{Roots: []string{tmp}, MaxSessions: launch.MaxSessions, StartsPerMinute: launch.MaxRate,
		Agents: map[string]launch.Agent{"claude-code": {Argv: []string{os.Args[0], launchHelper, e.base}}}}); err != nil {
		b.Fatal(err)
	}
	clock := time.Unix(1_800_000_000, 0)
	e.host.SetLauncher(launch.New(launch.Options{Path: path, Socket: socket, Hooked: func(string, string) bool { return true },
		Now: func() time.Time { clock = clock.Add(time.Minute); return clock }}), "")
	var hostD, rowD, agentD []time.Duration
	b.ResetTimer()
	for i := range b.N {
		id := "bench-" + strconv.Itoa(i)
		body, _ := json.Marshal(map[string]string{"folder": tmp, "agent": "claude-code", "prompt": id})
		t0 := time.Now()
		st, m := e.do(b, http.MethodPost, "/agents-notch/launch", string(body), nil)
		t1 := time.Now()
		if st != http.StatusOK {
			b.Fatalf("POST: %d %v", st, m)
		}
		for !e.board.Has(id) {
			if time.Since(t0) > 30*time.Second {
				b.Fatalf("no row %s within 30 s", id)
			}
			time.Sleep(time.Millisecond)
		}
		t2 := time.Now()
		hostD, rowD, agentD = append(hostD, t1.Sub(t0)), append(rowD, t2.Sub(t0)), append(agentD, t2.Sub(t1))
		_ = exec.Command("tmux", "-S", socket, "kill-pane", "-t", m["pane"].(string)).Run()
	}
	b.StopTimer()
	for _, s := range []struct {
		name string
		d    []time.Duration
	}{{"host", hostD}, {"row", rowD}, {"agent", agentD}} {
		slices.Sort(s.d)
		b.ReportMetric(float64(s.d[len(s.d)/2].Microseconds())/1000, s.name+"-p50-ms")
		b.ReportMetric(float64(s.d[min(len(s.d)-1, len(s.d)*99/100)].Microseconds())/1000, s.name+"-p99-ms")
	}
}
