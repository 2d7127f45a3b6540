package proc

import (
	"errors"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
)

// ErrNotLocal: the process is not of this machine's current boot (a hook
// that came through another machine's tunnel, a record from before a
// reboot) and cannot be watched here.
var ErrNotLocal = errors.New("the process is not of this machine's boot")

// SlowCheck is how often a process is looked at where the kernel cannot
// say when it ends (a pidfd refused, a platform without one).
const SlowCheck = 2 * time.Second

// Watch calls exited once, from a goroutine of its own, when the process
// id names has ended — at once when it already has, or when its PID now
// holds another process. stop ends the watch without calling exited (safe
// to call more than once, and after exited). Where the kernel says when a
// process ends (a pidfd on Linux, kqueue on macOS), the watch waits in
// Go's poller: no thread, no wake-up while the process runs; elsewhere it
// is a check every SlowCheck. A panic on the watch's goroutines (the wait,
// the slow check, exited's own) is written to log as the standard fatal
// record and ends the process with exit 2 (logx.Guard): never a raw trace.
func Watch(id ID, log *slog.Logger, exited func()) (stop func(), err error) {
	if !Local(id) {
		return nil, ErrNotLocal
	}
	w := &watch{id: id, log: log, exited: exited}
	fd, err := exitFD(id.PID)
	switch {
	case errors.Is(err, ErrNoProcess):
		w.fire()
		return w.stop, nil
	case err != nil:
		w.slow()
		return w.stop, nil
	}
	// The fd is of whatever process holds the PID now: is it this one?
	if in, err := Lookup(id.PID); err != nil || in.Start != id.Start || in.Gone {
		closeFD(fd)
		w.fire()
		return w.stop, nil
	}
	f := os.NewFile(uintptr(fd), "proc-exit")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		w.slow()
		return w.stop, nil
	}
	w.mu.Lock()
	w.closer = f.Close
	w.mu.Unlock()
	go w.wait(rc, f)
	return w.stop, nil
}

// wait waits in Go's poller for the process's end on rc, f's connection,
// then closes f and fires; a wait the platform refuses goes to the slow
// check.
func (w *watch) wait(rc syscall.RawConn, f *os.File) {
	defer logx.Guard(w.log)()
	rerr := rc.Read(func(fd uintptr) bool { return ended(int(fd)) })
	f.Close()
	if rerr != nil { // not pollable here after all (or stopped)
		if !w.isStopped() {
			w.slow()
		}
		return
	}
	w.fire()
}

// watch is one Watch.
type watch struct {
	id     ID
	log    *slog.Logger
	exited func()

	mu      sync.Mutex
	done    bool         // exited called, or stopped
	closer  func() error // ends the wait in the poller
	polling bool
}

func (w *watch) isStopped() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done
}

// fire calls exited once, unless stopped.
func (w *watch) fire() {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return
	}
	w.done = true
	polling := w.polling
	w.mu.Unlock()
	if polling {
		slowWatch.remove(w)
	}
	go w.callExited()
}

// callExited runs exited on a goroutine of its own, guarded.
func (w *watch) callExited() {
	defer logx.Guard(w.log)()
	w.exited()
}

func (w *watch) stop() {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return
	}
	w.done = true
	closer, polling := w.closer, w.polling
	w.mu.Unlock()
	if closer != nil {
		closer()
	}
	if polling {
		slowWatch.remove(w)
	}
}

// slow hands w to the slow check.
func (w *watch) slow() {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return
	}
	w.polling = true
	w.mu.Unlock()
	slowWatch.add(w)
}

// slowWatch checks its processes every SlowCheck; its goroutine runs only
// while it has some. Its panic is written to the log of the watch that
// started it: one host, one log.
var slowWatch = &poller{set: map[*watch]bool{}}

type poller struct {
	mu      sync.Mutex
	set     map[*watch]bool
	running bool
}

func (p *poller) add(w *watch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.set[w] = true
	if !p.running {
		p.running = true
		go p.run(w.log)
	}
}

func (p *poller) remove(w *watch) {
	p.mu.Lock()
	delete(p.set, w)
	p.mu.Unlock()
}

func (p *poller) run(log *slog.Logger) {
	defer logx.Guard(log)()
	t := time.NewTicker(SlowCheck)
	defer t.Stop()
	for range t.C {
		p.mu.Lock()
		if len(p.set) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		ws := make([]*watch, 0, len(p.set))
		for w := range p.set {
			ws = append(ws, w)
		}
		p.mu.Unlock()
		for _, w := range ws {
			if !Alive(w.id) {
				w.fire()
			}
		}
	}
}
