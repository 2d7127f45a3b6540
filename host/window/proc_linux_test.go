package window

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
)

// A host that is kill -9ed leaves no window: the test binary, re-run as a
// host (runAsHost), starts the fake window, which does not watch its
// parent; the host is killed outright, and the window must be gone within
// 2 s.
func TestWindowDiesWithAKilledHost(t *testing.T) {
	dir := t.TempDir()
	statePath := filepath.Join(dir, "state.json")
	if err := os.WriteFile(filepath.Join(dir, "fakewindow.json"), []byte(`{"mode": "run"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var hostLog strings.Builder
	host := exec.Command(os.Args[0])
	host.Env = append(os.Environ(), hostEnv+"="+fakeWindow, "NOTCH_WEB_WINDOW_TEST_STATE="+statePath)
	host.Stderr = &hostLog
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := false
	t.Cleanup(func() {
		if !reaped {
			host.Process.Kill()
			host.Wait()
		}
		if t.Failed() {
			t.Logf("the host's log:\n%s", hostLog.String())
		}
	})

	h := &harness{t: t, dir: dir}
	run := h.waitRuns(1)[0]
	if run.PPID != host.Process.Pid {
		t.Fatalf("the window's parent is %d, not the host %d", run.PPID, host.Process.Pid)
	}
	if !alive(run.PID) {
		t.Fatal("the window is not running")
	}

	killed := time.Now()
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	reaped = true
	// The fake window never ends by itself: that it ends at all is the
	// parent-death signal's doing, waited for with waitfor's patience.
	for alive(run.PID) {
		if time.Since(killed) > waitfor.Patience {
			syscall.Kill(run.PID, syscall.SIGKILL)
			t.Fatalf("the window %d outlived its kill -9ed host by %v", run.PID, waitfor.Patience)
		}
		time.Sleep(time.Millisecond)
	}
	gone := time.Since(killed)
	t.Logf("the window was gone %v after its host was killed", gone)
	// How soon is issue 10's own figure ("gone within 2 s"), asserted with
	// that bound and no tighter (docs/performance.md, "Real-time bounds").
	if gone > 2*time.Second {
		t.Errorf("the window was gone %v after its host's kill -9; issue 10 wants within 2 s", gone)
	}
}

// The parent-death signal follows the thread that forked the window: when
// other goroutines end threads (by returning while locked to them), the
// window must live on. The hazard is a race, and so is this test: a window
// started unlocked on the Run goroutine died here in about one run in ten
// (Go's Wait usually, not always, keeps the forking thread busy). With
// spawn's locked thread it cannot die.
func TestWindowOutlivesEndedThreads(t *testing.T) {
	h := newHarness(t, nil)
	h.plan(plan{Mode: "run"})
	h.start(true)
	st := h.waitStatus(Running, 1)
	h.waitRuns(1)
	for range 20 {
		done := make(chan struct{})
		for range 4 * runtime.GOMAXPROCS(0) {
			go func() {
				runtime.LockOSThread()
				done <- struct{}{}
				// Returning while locked ends this thread.
			}()
		}
		for range 4 * runtime.GOMAXPROCS(0) {
			<-done
		}
		// Give the forking thread's death, had it been one of these, time
		// to reach the window.
		time.Sleep(5 * time.Millisecond)
		if !alive(st.PID) {
			t.Fatal("the window died when a thread of the host ended")
		}
	}
	if got := h.sup.Status(); got.State != Running || got.Spawns != 1 {
		t.Errorf("status = %+v; want the first window still running", got)
	}
}
