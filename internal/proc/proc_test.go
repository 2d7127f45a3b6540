package proc

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// tree is a recorded process table.
type tree map[int]Info

// bootRE is what a boot id may be, as a regexp: the spec bootChars is held to.
var bootRE = regexp.MustCompile(`^[0-9A-Za-z.-]{1,64}$`)

func (t tree) lookup(pid int) (Info, error) {
	in, ok := t[pid]
	if !ok {
		return Info{}, ErrNoProcess
	}
	return in, nil
}

// The trees are recorded: each agent's chain above a command hook, as
// /proc said it with the pinned CLIs in tmux (3 December 2026; the hook
// command itself is left out, its parent is where Agent starts).
func TestAgent(t *testing.T) {
	tests := []struct {
		name   string
		tree   tree
		parent int
		want   int // 0: none
	}{
		{
			// setsid + /bin/sh -c: dash forks the command, the sh stays.
			name: "Claude Code 2.1.328 TUI",
			tree: tree{
				9178: {PID: 9178, PPID: 9166, Name: "sh", Start: 26510},
				9166: {PID: 9166, PPID: 9165, Name: "claude", Start: 26475},
				9165: {PID: 9165, PPID: 1, Name: "tmux: server", Start: 26468},
			},
			parent: 9178, want: 9166,
		},
		{
			name: "claude -p under timeout",
			tree: tree{
				4039: {PID: 4039, PPID: 4032, Name: "sh", Start: 21322},
				4032: {PID: 4032, PPID: 4031, Name: "claude", Start: 21277},
				4031: {PID: 4031, PPID: 4015, Name: "timeout", Start: 21277},
			},
			parent: 4039, want: 4032,
		},
		{
			// bash -c execs the command: the hook's parent is the daemon
			// that owns the turns, not the TUI.
			name: "Codex 0.169.0 TUI: its app-server daemon",
			tree: tree{
				12472: {PID: 12472, PPID: 12213, Name: "codex", Start: 32657},
				12213: {PID: 12213, PPID: 12187, Name: "codex", Start: 32288},
				12187: {PID: 12187, PPID: 12186, Name: "node", Start: 32267},
				12186: {PID: 12186, PPID: 1, Name: "tmux: server", Start: 32267},
			},
			parent: 12472, want: 12472,
		},
		{
			name: "codex exec: the native binary under its node shim",
			tree: tree{
				4781: {PID: 4781, PPID: 4770, Name: "codex", Start: 21925},
				4770: {PID: 4770, PPID: 4769, Name: "node", Start: 21918},
			},
			parent: 4781, want: 4781,
		},
		{
			// Gemini relaunches itself; the child runs the hooks.
			name: "Gemini CLI 0.61.0: the relaunched child node",
			tree: tree{
				28649: {PID: 28649, PPID: 28636, Name: "node", Start: 53152},
				28636: {PID: 28636, PPID: 28635, Name: "node", Start: 53089},
				28635: {PID: 28635, PPID: 1, Name: "tmux: server", Start: 53088},
			},
			parent: 28649, want: 28649,
		},
		{
			name: "a login shell and env",
			tree: tree{
				903: {PID: 903, PPID: 902, Name: "-bash", Start: 9},
				902: {PID: 902, PPID: 901, Name: "env", Start: 8},
				901: {PID: 901, PPID: 50, Name: "node", Start: 7},
			},
			parent: 903, want: 901,
		},
		{
			// A hook command under a wrapper that is not a shell, as an
			// agent's settings may write it: timeout forks the hook and
			// ends with it, so it is never the agent.
			name: "timeout 5 notch-web hook, run by the agent's shell",
			tree: tree{
				700: {PID: 700, PPID: 699, Name: "timeout", Start: 30},
				699: {PID: 699, PPID: 698, Name: "sh", Start: 29},
				698: {PID: 698, PPID: 50, Name: "claude", Start: 20},
			},
			parent: 700, want: 698,
		},
		{
			name: "wrappers on wrappers: flock, time, sudo, xargs, gtimeout, setsid",
			tree: tree{
				810: {PID: 810, PPID: 809, Name: "flock", Start: 40},
				809: {PID: 809, PPID: 808, Name: "time", Start: 39},
				808: {PID: 808, PPID: 807, Name: "sudo", Start: 38},
				807: {PID: 807, PPID: 806, Name: "xargs", Start: 37},
				806: {PID: 806, PPID: 805, Name: "gtimeout", Start: 36},
				805: {PID: 805, PPID: 804, Name: "setsid", Start: 35},
				804: {PID: 804, PPID: 800, Name: "zsh", Start: 34},
				800: {PID: 800, PPID: 50, Name: "codex", Start: 30},
			},
			parent: 810, want: 800,
		},
		{
			name: "only shells up to init",
			tree: tree{
				5: {PID: 5, PPID: 4, Name: "sh", Start: 1},
				4: {PID: 4, PPID: 1, Name: "bash", Start: 1},
			},
			parent: 5,
		},
		{
			name:   "an unreadable parent",
			tree:   tree{},
			parent: 42,
		},
		{
			name: "a loop of shells is bounded",
			tree: tree{
				10: {PID: 10, PPID: 11, Name: "sh"},
				11: {PID: 11, PPID: 10, Name: "sh"},
			},
			parent: 10,
		},
		{name: "init is never the agent", tree: tree{1: {PID: 1, Name: "systemd"}}, parent: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := Agent(tt.tree.lookup, tt.parent, "b")
			if tt.want == 0 {
				if err == nil {
					t.Fatalf("Agent = %+v, want none", id)
				}
				return
			}
			if err != nil || id.PID != tt.want || id.Start != tt.tree[tt.want].Start || id.Boot != "b" {
				t.Fatalf("Agent = %+v, %v; want pid %d", id, err, tt.want)
			}
		})
	}
}

func TestHeader(t *testing.T) {
	id := ID{PID: 4242, Start: 123456789, Boot: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"}
	if got := Parse(id.Encode()); got != id {
		t.Fatalf("Parse(Encode(%+v)) = %+v", id, got)
	}
	if (ID{}).Encode() != "" {
		t.Fatal("the zero ID encodes to something")
	}
	bad := []string{
		"",
		"pid=4242&start=1",                 // no boot
		"pid=4242&start=1&boot=b&x=1",      // unknown key
		"pid=4242&pid=4243&start=1&boot=b", // twice
		"pid=1&start=1&boot=b",             // init
		"pid=0&start=1&boot=b",             // none
		"pid=-5&start=1&boot=b",            // negative
		"pid=99999999999&start=1&boot=b",   // beyond a PID
		"pid=42&start=1e9&boot=b",          // not digits
		"pid=42&start=1&boot=a%0Ab",        // a control character
		"pid=42&start=1&boot=%3Cscript%3E", // markup
		"pid=42&start=1&boot=" + strings.Repeat("a", 65),
		"pid=42&start=99999999999999999999999&boot=b", // beyond uint64
		"%zz",
		strings.Repeat("pid=1&", 100),
	}
	for _, s := range bad {
		if got := Parse(s); !got.IsZero() {
			t.Errorf("Parse(%q) = %+v, want the zero ID", s, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("pid=4242&start=123&boot=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0") // a real one
	f.Add("pid=42&start=1&boot=a%0Ab")                                    // a control character
	f.Add("pid=1&start=1&boot=b")                                         // init
	f.Add("%zz")                                                          // not a query
	f.Fuzz(func(t *testing.T, s string) {
		id := Parse(s)
		if id.IsZero() {
			return
		}
		if id.PID <= 1 || !bootRE.MatchString(id.Boot) || len(s) > MaxHeader {
			t.Fatalf("Parse(%q) = %+v", s, id)
		}
		if again := Parse(id.Encode()); again != id {
			t.Fatalf("Parse(Encode(%+v)) = %+v", id, again)
		}
	})
}

// supported skips a test on a platform without process facts.
func supported(t *testing.T) {
	t.Helper()
	if _, err := Of(os.Getpid()); errors.Is(err, ErrUnsupported) {
		t.Skipf("no process facts on %s", runtime.GOOS)
	}
}

// child starts a process that runs until killed, reaped in the
// background (a zombie is no longer the agent).
func child(t *testing.T) (*exec.Cmd, ID) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=TestHelperSleep")
	cmd.Env = append(os.Environ(), "PROC_HELPER_SLEEP=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	t.Cleanup(func() { cmd.Process.Kill() })
	id, err := Of(cmd.Process.Pid)
	if err != nil {
		t.Fatalf("Of(child): %v", err)
	}
	return cmd, id
}

// TestHelperSleep is the child process of the watch tests.
func TestHelperSleep(t *testing.T) {
	if os.Getenv("PROC_HELPER_SLEEP") != "1" {
		t.Skip("the watch tests' child process")
	}
	time.Sleep(time.Minute)
}

// exitedWithin waits for a signal on c.
func exitedWithin(t *testing.T, c <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(d):
		t.Fatalf("%s: no exit reported within %v", what, d)
	}
}

func TestWatchReportsAnExit(t *testing.T) {
	supported(t)
	cmd, id := child(t)
	if !Alive(id) {
		t.Fatal("the child is not alive")
	}
	got := make(chan struct{}, 2)
	stop, err := Watch(id, discard, func() { got <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	select {
	case <-got:
		t.Fatal("an exit reported while the child runs")
	case <-time.After(50 * time.Millisecond):
	}
	cmd.Process.Kill() // kill -9
	exitedWithin(t, got, SlowCheck+3*time.Second, "kill -9")
	if Alive(id) {
		t.Fatal("Alive after the exit")
	}
	stop() // after the exit: harmless
	select {
	case <-got:
		t.Fatal("exited called twice")
	case <-time.After(50 * time.Millisecond):
	}
}

func TestWatchStopped(t *testing.T) {
	supported(t)
	cmd, id := child(t)
	got := make(chan struct{}, 1)
	stop, err := Watch(id, discard, func() { got <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	stop()
	cmd.Process.Kill()
	select {
	case <-got:
		t.Fatal("a stopped watch reported the exit")
	case <-time.After(300 * time.Millisecond):
	}
}

func TestWatchAReusedPID(t *testing.T) {
	supported(t)
	_, id := child(t)
	// The PID held by a process that started at another time is not the
	// process named: it has ended, at once.
	other := id
	other.Start++
	if Alive(other) {
		t.Fatal("Alive with another start time")
	}
	got := make(chan struct{}, 1)
	if _, err := Watch(other, discard, func() { got <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	exitedWithin(t, got, time.Second, "a reused PID")
	if !Alive(id) {
		t.Fatal("the real child is not alive")
	}
}

func TestWatchAnotherBoot(t *testing.T) {
	supported(t)
	_, id := child(t)
	id.Boot = "another-machine"
	if _, err := Watch(id, discard, func() {}); !errors.Is(err, ErrNotLocal) {
		t.Fatalf("Watch of another boot's process: %v, want ErrNotLocal", err)
	}
	if Alive(id) {
		t.Fatal("Alive for another boot")
	}
}

func TestWatchGone(t *testing.T) {
	supported(t)
	cmd, id := child(t)
	cmd.Process.Kill()
	for deadline := time.Now().Add(5 * time.Second); Alive(id); {
		if time.Now().After(deadline) {
			t.Fatal("the killed child stays alive")
		}
		time.Sleep(10 * time.Millisecond)
	}
	got := make(chan struct{}, 1)
	if _, err := Watch(id, discard, func() { got <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	exitedWithin(t, got, time.Second, "a process already gone")
}

func TestOfThisProcess(t *testing.T) {
	supported(t)
	id, err := Of(os.Getpid())
	if err != nil || id.PID != os.Getpid() || id.Start == 0 || id.Boot == "" {
		t.Fatalf("Of(self) = %+v, %v", id, err)
	}
	if !Local(id) || !Alive(id) {
		t.Fatal("this process is not local and alive")
	}
}

// BenchmarkWatchIdle is what watching 1,000 processes costs while
// nothing ends, beside the same 1,000 unwatched (the floor: Go's runtime
// and the children's reapers): each op is a second of nothing, and
// cpu-ms/s this process's CPU time over it.
func BenchmarkWatchIdle(b *testing.B) {
	if _, err := Of(os.Getpid()); err != nil {
		b.Skip(err)
	}
	const n = 1000
	ids := make([]ID, 0, n)
	for range n {
		cmd := exec.Command("sleep", "600")
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		go cmd.Wait()
		b.Cleanup(func() { cmd.Process.Kill() })
		id, err := Of(cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
	}
	idle := func(b *testing.B) {
		for range b.N {
			before := cpuTime()
			time.Sleep(time.Second)
			b.ReportMetric(float64((cpuTime()-before).Microseconds())/1000, "cpu-ms/s")
		}
	}
	b.Run("unwatched", idle)
	b.Run("watched", func(b *testing.B) {
		for _, id := range ids {
			stop, err := Watch(id, discard, func() { b.Error("an exit while idle") })
			if err != nil {
				b.Fatal(err)
			}
			defer stop()
		}
		b.ResetTimer()
		idle(b)
	})
}
