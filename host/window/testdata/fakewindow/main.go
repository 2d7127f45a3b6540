// Command fakewindow stands in for the desktop window in the supervisor's
// tests. Like the real one it takes only --state PATH --parent-pid PID; what
// it does is read from fakewindow.json beside the state file, which the test
// writes before each spawn it wants to steer:
//
//	{"mode": "run"}                       run until SIGTERM or fakewindow.stop appears
//	{"mode": "ignore-term"}               the same, but SIGTERM is only printed
//	{"mode": "exit", "code": 3}           exit at once with code
//	{"mode": "crash", "crashLine": "…", "code": 2}
//	                                      append the line to window-crash.log, exit with code
//	{"mode": "quit", "wallMs": 1790000000000}
//	                                      write quit.json, exit 0 ("quitRaw" writes those bytes instead)
//
// "stdout" and "stderr" (lists of strings) are printed first. Every start
// appends {"pid", "ppid", "args", "dshHome"} to fakewindow.runs, so the test can count
// spawns and check the arguments. It never watches --parent-pid: the tests
// of dying with the host must not be helped by it.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

type plan struct {
	Mode      string   `json:"mode"`
	Code      int      `json:"code"`
	CrashLine string   `json:"crashLine"`
	WallMs    int64    `json:"wallMs"`
	QuitRaw   string   `json:"quitRaw"`
	Stdout    []string `json:"stdout"`
	Stderr    []string `json:"stderr"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakewindow:", err)
		os.Exit(100)
	}
}

func run() error {
	statePath := flag.String("state", "", "state.json")
	flag.Int("parent-pid", 0, "the host's pid (not watched)")
	flag.Parse()
	if *statePath == "" || flag.NArg() > 0 {
		return errors.New("usage: fakewindow --state PATH --parent-pid PID")
	}
	dir := filepath.Dir(*statePath)

	// Signals first, so a SIGTERM right after the start is not lost.
	term := make(chan os.Signal, 4)
	signal.Notify(term, syscall.SIGTERM)

	dshHome, hasHome := os.LookupEnv("DSH_HOME")
	rec, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "ppid": os.Getppid(), "args": os.Args[1:], "dshHome": dshHome, "hasDSHHome": hasHome})
	if err := appendLine(filepath.Join(dir, "fakewindow.runs"), string(rec)); err != nil {
		return err
	}
	var p plan
	data, err := os.ReadFile(filepath.Join(dir, "fakewindow.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	for _, l := range p.Stdout {
		fmt.Fprintln(os.Stdout, l)
	}
	for _, l := range p.Stderr {
		fmt.Fprintln(os.Stderr, l)
	}

	switch p.Mode {
	case "exit":
		os.Exit(p.Code)
	case "crash":
		if err := appendLine(filepath.Join(dir, "window-crash.log"), p.CrashLine); err != nil {
			return err
		}
		os.Exit(p.Code)
	case "quit":
		body := p.QuitRaw
		if body == "" {
			body = fmt.Sprintf(`{"wallMs": %d}`, p.WallMs)
		}
		if err := os.WriteFile(filepath.Join(dir, "quit.json"), []byte(body), 0o644); err != nil {
			return err
		}
		os.Exit(0)
	case "run", "ignore-term":
		stop := filepath.Join(dir, "fakewindow.stop")
		tick := time.NewTicker(10 * time.Millisecond)
		for {
			select {
			case <-term:
				if p.Mode == "run" {
					fmt.Println("got SIGTERM, leaving")
					os.Exit(0)
				}
				fmt.Println("got SIGTERM, ignoring it")
			case <-tick.C:
				if _, err := os.Stat(stop); err == nil {
					os.Remove(stop)
					os.Exit(p.Code)
				}
			}
		}
	}
	return fmt.Errorf("unknown mode %q", p.Mode)
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
