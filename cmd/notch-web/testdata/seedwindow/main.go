// Command seedwindow plays the desktop window of the frozen contract
// (docs/contract.md; the seed's desktop/bin/AgentsNotch) in the contract
// tests: it does what that window does with the files, and nothing it
// does not. It takes only --state PATH --parent-pid PID, reads nothing
// but the state file (and DSH_HOME from its environment, else ~/.dsh,
// the home being USERPROFILE on Windows), and
//
//   - polls --state every 50 ms: more than 4 s between wallMs and its own
//     clock is the unknown state (rule 3), never the last summary;
//   - keeps its own log in window.log beside the state file, truncated at
//     start;
//   - on its ✕ POSTs {sessionId, state:"finished"} to finishedUrl, or,
//     when finishedUrl is null, writes that same mark as the whole of
//     $DSH_HOME/state/session-finished/manual.json;
//   - on Quit overlay writes quit.json {"wallMs": now} beside the state
//     file and exits 0;
//   - on an unhandled exception appends one line to window-crash.log
//     beside the state file and dies.
//
// The test drives the human's hand through seedwindow.cmd beside the state
// file (one command, taken and removed: "close ID", "quit", "crash TEXT")
// and reads what the window shows from seedwindow.view.json, rewritten
// whenever it changes.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// staleAfter is rule 3's bound.
const staleAfter = 4 * time.Second

// doc is what the window reads of state.json.
type doc struct {
	WallMs      int64   `json:"wallMs"`
	FinishedURL *string `json:"finishedUrl"`
	Summary     struct {
		Status string `json:"status"`
		Total  int    `json:"total"`
	} `json:"summary"`
	Sessions []struct {
		ID     string `json:"id"`
		Title  string `json:"title"`
		Status string `json:"status"`
	} `json:"sessions"`
}

// view is what the window shows, for the test to read.
type view struct {
	PID     int      `json:"pid"`
	DSHHome string   `json:"dshHome"`
	Tab     string   `json:"tab"`    // "live", "unknown" (stale or unreadable), "none" (no file yet)
	Status  string   `json:"status"` // summary.status while live
	IDs     []string `json:"ids"`    // the rows while live
	Titles  []string `json:"titles"`
	Closed  []string `json:"closed"` // each ✕: "posted ID 200", "wrote ID", "failed ID: why"
}

func main() {
	if err := run(); err != nil {
		crash(err.Error())
	}
}

var crashPath string

// crash is the window's unhandled exception: one line, then death.
func crash(why string) {
	if crashPath != "" {
		f, err := os.OpenFile(crashPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s Unhandled exception: %s\n", time.Now().UTC().Format(time.RFC3339), why)
			f.Close()
		}
	}
	panic(why)
}

func run() error {
	statePath := flag.String("state", "", "state.json")
	parent := flag.Int("parent-pid", 0, "the host's pid")
	flag.Parse()
	if *statePath == "" || flag.NArg() > 0 {
		return errors.New("usage: seedwindow --state PATH --parent-pid PID")
	}
	dir := filepath.Dir(*statePath)
	crashPath = filepath.Join(dir, "window-crash.log")
	home := os.Getenv("DSH_HOME")
	if home == "" {
		h := os.Getenv("HOME")
		if runtime.GOOS == "windows" {
			h = os.Getenv("USERPROFILE")
		}
		home = filepath.Join(h, ".dsh")
	}
	logf, err := os.Create(filepath.Join(dir, "window.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "started: state %s, DSH home %s, parent %d\n", *statePath, home, *parent)

	v := view{PID: os.Getpid(), DSHHome: home, Tab: "none", IDs: []string{}, Titles: []string{}, Closed: []string{}}
	var last []byte
	var d doc
	for tick := time.NewTicker(50 * time.Millisecond); ; <-tick.C {
		if *parent > 0 && !alive(*parent) {
			return nil // the --parent-pid watch
		}
		v.Tab, v.Status, v.IDs, v.Titles = "none", "", []string{}, []string{}
		if data, err := os.ReadFile(*statePath); err == nil {
			d = doc{}
			v.Tab = "unknown"
			if json.Unmarshal(data, &d) == nil && time.Since(time.UnixMilli(d.WallMs)).Abs() <= staleAfter {
				v.Tab, v.Status = "live", d.Summary.Status
				for _, s := range d.Sessions {
					v.IDs = append(v.IDs, s.ID)
					v.Titles = append(v.Titles, s.Title)
				}
			}
		}
		if cmd, err := take(filepath.Join(dir, "seedwindow.cmd")); err == nil {
			verb, arg, _ := strings.Cut(cmd, " ")
			switch verb {
			case "close":
				v.Closed = append(v.Closed, closeOut(d.FinishedURL, home, arg))
			case "quit":
				q := fmt.Sprintf(`{"wallMs": %d}`, time.Now().UnixMilli())
				return os.WriteFile(filepath.Join(dir, "quit.json"), []byte(q), 0o644)
			case "crash":
				crash(arg)
			}
		}
		if out, _ := json.Marshal(v); !bytes.Equal(out, last) {
			if err := writeAtomic(filepath.Join(dir, "seedwindow.view.json"), out); err != nil {
				return err
			}
			last = out
		}
	}
}

// closeOut is the ✕ on session id.
func closeOut(finishedURL *string, home, id string) string {
	mark, _ := json.Marshal(map[string]string{"sessionId": id, "state": "finished"})
	if finishedURL != nil {
		res, err := http.Post(*finishedURL, "application/json", bytes.NewReader(mark))
		if err != nil {
			return "failed " + id + ": " + err.Error()
		}
		res.Body.Close()
		return fmt.Sprintf("posted %s %d", id, res.StatusCode)
	}
	path := filepath.Join(home, "state", "session-finished", "manual.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "failed " + id + ": " + err.Error()
	}
	if err := writeAtomic(path, mark); err != nil {
		return "failed " + id + ": " + err.Error()
	}
	return "wrote " + id
}

// take reads and removes the command file.
func take(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	os.Remove(path)
	return strings.TrimSpace(string(data)), nil
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".seedwindow-tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// alive reports whether process pid is still there.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	if runtime.GOOS == "windows" {
		return true // FindProcess opened it
	}
	return p.Signal(syscall.Signal(0)) == nil
}
