package timerslack

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// child, in the environment, makes this test binary a program that relaxes
// and reports (TestMain).
const child = "TIMERSLACK_TEST_CHILD"

// TestMain runs the child: it records whether it is the program executed
// again, calls Relax as main does, starts threads as a host would, and
// prints its process id, that record, Relax's error, whether the mark is
// left, and each thread's slack.
func TestMain(m *testing.M) {
	if os.Getenv(child) == "" {
		os.Exit(m.Run())
	}
	executedAgain := os.Getenv(again) != ""
	err := Relax(os.Getenv, os.Unsetenv)
	// Threads the runtime starts from here on: goroutines that block in
	// system calls each hold one.
	done := make(chan struct{})
	for range 4 {
		go func() {
			runtime.LockOSThread()
			time.Sleep(50 * time.Millisecond)
			done <- struct{}{}
		}()
	}
	for range 4 {
		<-done
	}
	fmt.Printf("pid %d\nagain %v\nerr %v\nmark %q\n", os.Getpid(), executedAgain, err, os.Getenv(again))
	// What it starts, as the window supervisor starts the window.
	runtime.LockOSThread()
	restore := ForChild()
	out, cerr := exec.Command("cat", "/proc/self/timerslack_ns").Output()
	restore()
	fmt.Printf("started %s %v\n", strings.TrimSpace(string(out)), cerr)
	fmt.Printf("restored %d\n", Current())
	runtime.UnlockOSThread()
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, e := range tasks {
		b, err := os.ReadFile("/proc/" + e.Name() + "/timerslack_ns")
		if err != nil {
			fmt.Printf("slack %s ?\n", e.Name())
			continue
		}
		fmt.Printf("slack %s %s\n", e.Name(), strings.TrimSpace(string(b)))
	}
	os.Exit(0)
}

type report struct {
	started  string // the slack of a program it started, and cat's error
	restored int64  // the starting thread's slack after
	pid      int
	again    bool
	err      string
	mark     string
	slacks   map[string]int64
}

func runChild(t *testing.T, env ...string) report {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, child+"=1")...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	r := report{slacks: map[string]int64{}}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "pid":
			r.pid, _ = strconv.Atoi(v)
		case "again":
			r.again = v == "true"
		case "err":
			r.err = v
		case "started":
			r.started = v
		case "restored":
			r.restored, _ = strconv.ParseInt(v, 10, 64)
		case "mark":
			r.mark = v
		case "slack":
			tid, ns, _ := strings.Cut(v, " ")
			n, err := strconv.ParseInt(ns, 10, 64)
			if err != nil {
				t.Fatalf("thread %s's slack: %q", tid, ns)
			}
			r.slacks[tid] = n
		}
	}
	if r.pid != cmd.Process.Pid {
		t.Fatalf("the child reports process %d, was started as %d: executing again must keep the process", r.pid, cmd.Process.Pid)
	}
	if len(r.slacks) < 5 {
		t.Fatalf("the child reports %d threads' slack, want its main thread, the runtime's and four more", len(r.slacks))
	}
	return r
}

// Every thread of a relaxed program has the slack, the runtime's monitor
// thread among them, which exists before any Go code runs: the program was
// executed again, in the same process, and no mark is left for what it
// starts.
func TestRelaxEveryThread(t *testing.T) {
	r := runChild(t)
	if r.err != "<nil>" || r.mark != `""` {
		t.Fatalf("Relax = %s, mark left %s", r.err, r.mark)
	}
	mine := mySlack(t)
	if mine < Slack.Nanoseconds() && !r.again {
		t.Error("the child was not executed again")
	}
	for tid, ns := range r.slacks {
		if ns < Slack.Nanoseconds() {
			t.Errorf("thread %s: slack %d ns, want at least %d", tid, ns, Slack.Nanoseconds())
		}
	}
	// A program it starts runs at the slack it was given, as if it had
	// not relaxed; the thread that started it is relaxed again after.
	if mine < Slack.Nanoseconds() {
		if want := fmt.Sprintf("%d <nil>", mine); r.started != want {
			t.Errorf("a program the relaxed one started: slack %q, want %q (the one it was given)", r.started, want)
		}
	}
	if r.restored < Slack.Nanoseconds() {
		t.Errorf("the starting thread's slack after: %d ns", r.restored)
	}
}

// NOTCH_WEB_TIMER_SLACK=off keeps the kernel's slack, and the program.
func TestRelaxOff(t *testing.T) {
	mine := mySlack(t)
	if mine >= Slack.Nanoseconds() {
		t.Skipf("this test runs at a slack of %d ns already", mine)
	}
	r := runChild(t, Env+"=off")
	if r.err != "<nil>" || r.again {
		t.Fatalf("Relax off = %s, executed again %v", r.err, r.again)
	}
	for tid, ns := range r.slacks {
		if ns >= Slack.Nanoseconds() {
			t.Errorf("thread %s: slack %d ns with %s=off", tid, ns, Env)
		}
	}
}

func mySlack(t *testing.T) int64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	n := Current()
	if n < 0 {
		t.Skip("this kernel has no timer slack to read")
	}
	return n
}

// The program executed again removes the mark at once, and does not
// execute itself again: its slack is Relax's already.
func TestRelaxAgainUnsetsTheMark(t *testing.T) {
	defer func() { given = 0 }()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	was := Current()
	if was < 0 {
		t.Skip("this kernel has no timer slack to read")
	}
	// As the program executed again finds it: the slack Relax set.
	if err := unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(Slack.Nanoseconds()), 0, 0, 0); err != nil {
		t.Skipf("the slack cannot be set here: %v", err)
	}
	defer unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(was), 0, 0, 0)
	env := map[string]string{again: "50000", Env: "nonsense"}
	err := Relax(func(k string) string { return env[k] }, func(k string) error { delete(env, k); return nil })
	if err != nil || env[again] != "" {
		t.Fatalf("Relax after a re-execution = %v, mark %q; want nil and no mark", err, env[again])
	}
	if given != 50000 {
		t.Errorf("the slack it was given: %d, want 50000", given)
	}
}

// A mark Relax did not make — set by whoever started notch-web, garbage,
// a slack of seconds — is no mark: the program relaxes as it would
// without it, and what it starts gets the slack it was really started
// with, never the mark's.
func TestRelaxIgnoresAMarkNotItsOwn(t *testing.T) {
	mine := mySlack(t)
	if mine >= Slack.Nanoseconds() {
		t.Skipf("this test runs at a slack of %d ns already", mine)
	}
	for _, mark := range []string{"a\nbc", "5000000000", "50000", "0", "-1", strings.Repeat("9", 100)} {
		t.Run(strconv.Quote(mark), func(t *testing.T) {
			r := runChild(t, again+"="+mark)
			if r.err != "<nil>" || r.mark != `""` {
				t.Fatalf("Relax = %s, mark left %s", r.err, r.mark)
			}
			for tid, ns := range r.slacks {
				if ns < Slack.Nanoseconds() {
					t.Errorf("thread %s: slack %d ns, want at least %d (the mark %q skipped the slack)", tid, ns, Slack.Nanoseconds(), mark)
				}
			}
			if want := fmt.Sprintf("%d <nil>", mine); r.started != want {
				t.Errorf("a program the relaxed one started: slack %q, want %q (the one it was given, not the mark's)", r.started, want)
			}
		})
	}
}
