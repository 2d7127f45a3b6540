//go:build notch_hub

package mesh

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/launch"
)

// launchHelper, as the test binary's first argument, makes it a stand-in
// agent for BenchmarkRemoteLaunchToRow: it sends Claude Code's
// SessionStart for the session its prompt names to the machine's hook
// listener at its second argument, then stays as an agent at its prompt
// does. (web's BenchmarkLaunchToRow has the same helper, for a start on
// this machine.)
const launchHelper = "notch-web-remote-launch-bench-agent"

func TestMain(m *testing.M) {
	if len(os.Args) > 4 && os.Args[1] == launchHelper {
		body, _ := json.Marshal(map[string]string{"session_id": os.Args[4], "hook_event_name": "SessionStart", "source": "startup", "cwd": "/src/bench"})
		_, _ = http.Post(os.Args[2], "application/json", bytes.NewReader(body))
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// BenchmarkRemoteLaunchToRow: a start asked on the hub for machine box
// (Host.Launch → NATS → box's own launch file and tmux) → the row on box's
// board → the row on the hub's board, with a stand-in agent that sends
// its first hook as soon as it runs (over HTTP to box's Host.Hook, as
// notch-web hook does). hub-p50/p99 is the hub's wait for box's answer
// (the round trip, box's checks, tmux new-window); box-row the whole way
// to the row on box; row the whole way to the row on the hub; agent the
// stand-in agent's own start to its first hook (box-row less hub);
// publish what the hub's row lags box's (box's board published over
// NATS). A real agent's start dominates (seconds: conformance TestLaunch,
// TestLaunchJoined).
func BenchmarkRemoteLaunchToRow(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed")
	}
	hub := testHub(b)
	hh := hubHost(b, hub)
	mh, _ := testMachineHost(b, hub, "box")
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		body, _ := io.ReadAll(q.Body)
		if _, err := mh.Hook("claude-code", body, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	}))
	b.Cleanup(hooks.Close)
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
		Agents: map[string]launch.Agent{"claude-code": {Argv: []string{os.Args[0], launchHelper, hooks.URL}}}}); err != nil {
		b.Fatal(err)
	}
	clock := time.Unix(1_800_000_000, 0)
	mh.SetLauncher(launch.New(launch.Options{Path: path, Socket: socket, Hooked: func(string, string) bool { return true },
		Now: func() time.Time { clock = clock.Add(time.Minute); return clock }}), "box")
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if o, err := hh.LaunchOptions(ctx, "box"); err == nil && o.On {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("box did not answer the hub within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	wait := func(what string, t0 time.Time, has func() bool) time.Time {
		for !has() {
			if time.Since(t0) > 30*time.Second {
				b.Fatalf("no %s within 30 s", what)
			}
			time.Sleep(time.Millisecond)
		}
		return time.Now()
	}
	var hubD, boxD, rowD, agentD, pubD []time.Duration
	b.ResetTimer()
	for i := range b.N {
		id := "bench-" + strconv.Itoa(i)
		t0 := time.Now()
		res, err := hh.Launch(ctx, host.LaunchRequest{Machine: "box", Device: "bench", Request: launch.Request{Folder: tmp, Agent: "claude-code", Prompt: id}})
		t1 := time.Now()
		if err != nil {
			b.Fatalf("the hub's start on box: %v", err)
		}
		t2 := wait("row "+id+" on box", t0, func() bool { return mh.Board().Has(id) })
		t3 := wait("row box/"+id+" on the hub", t0, func() bool { return hh.Board().Has("box/" + id) })
		hubD, boxD, rowD = append(hubD, t1.Sub(t0)), append(boxD, t2.Sub(t0)), append(rowD, t3.Sub(t0))
		agentD, pubD = append(agentD, t2.Sub(t1)), append(pubD, t3.Sub(t2))
		_ = exec.Command("tmux", "-S", socket, "kill-pane", "-t", res.Pane).Run()
	}
	b.StopTimer()
	for _, s := range []struct {
		name string
		d    []time.Duration
	}{{"hub", hubD}, {"box-row", boxD}, {"row", rowD}, {"agent", agentD}, {"publish", pubD}} {
		slices.Sort(s.d)
		b.ReportMetric(float64(s.d[len(s.d)/2].Microseconds())/1000, s.name+"-p50-ms")
		b.ReportMetric(float64(s.d[min(len(s.d)-1, len(s.d)*99/100)].Microseconds())/1000, s.name+"-p99-ms")
	}
}
