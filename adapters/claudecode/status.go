package claudecode

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notch-web/notch-web/state"
)

// Claude Code 2.1 keeps one small file per running interactive process,
// <config dir>/sessions/<pid>.json, beside the transcripts' projects/
// folder: its sessionId, and its status ("busy" while a turn runs,
// "waiting" at a prompt of its own, "idle" at the input) with the ms it
// last changed (statusUpdatedAt). An Esc before the model's first output
// puts the prompt back into the input, fires no hook and writes no
// transcript line; only this file says the session is idle again.
const (
	// statusMax bounds one status file (they are under 1 KiB).
	statusMax = 16 << 10
	// statusScan bounds how many entries of the sessions folder are
	// looked at to find a session's file.
	statusScan = 256
	// statusCacheMax bounds the remembered session → file names.
	statusCacheMax = 1024
)

// statusFile is the part of a status file Idle reads.
type statusFile struct {
	SessionID       string `json:"sessionId"`
	Status          string `json:"status"`
	StatusUpdatedAt int64  `json:"statusUpdatedAt"`
	// PID is Claude Code's own process (the native binary), ProcStart its
	// start as /proc/<pid>/stat's field 22 says (clock ticks after boot,
	// as a string; checked on Linux 2.1.328).
	PID       int    `json:"pid"`
	ProcStart string `json:"procStart"`
}

// statusFiles remembers which file held a session's status, so a poll
// reads one file, not the folder (a pid's file can be another session's
// later: the session id is checked on every read).
var statusFiles = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// Idle reports whether Claude Code says, outside its hooks, that the
// session whose transcript is at path went idle at its input after since:
// its status file says "idle", changed after since. Any problem (a path
// that is not a transcript under a projects folder, no status file for the
// session, a file that is not regular or is too big, unparseable JSON) is
// false: the row keeps what the hooks said.
func Idle(path string, since time.Time) bool {
	dir, session, ok := statusDir(path)
	if !ok {
		return false
	}
	st, ok := sessionStatus(dir, session)
	return ok && st.Status == "idle" && st.StatusUpdatedAt > since.UnixMilli()
}

// Busy reports that Claude Code's status file says the session whose
// transcript is at path works now ("busy"), and since when: its
// statusUpdatedAt. Any problem is false, as for Idle.
func Busy(path string) (since time.Time, ok bool) {
	dir, session, ok := statusDir(path)
	if !ok {
		return time.Time{}, false
	}
	st, ok := sessionStatus(dir, session)
	if !ok || st.Status != "busy" || st.StatusUpdatedAt <= 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(st.StatusUpdatedAt), true
}

// Settled reports that the session whose transcript is at path has ended
// its turn since: its status file says "idle", changed after since (a
// completed turn, an Esc, a failed request alike: the file does not say
// which, so it is completed). It is what a host restarted while the turn
// ended reads.
func Settled(path string, since time.Time) (outcome string, ok bool) {
	if Idle(path, since) {
		return state.OutcomeCompleted, true
	}
	return "", false
}

// Process is the process Claude Code's status file names for the session
// whose transcript is at path: its PID and its start (procStart, in
// /proc's clock ticks). A session without a status file (one run with -p
// that has exited) or with no start has none. A kill -9 leaves the file
// behind: the process it names is then gone, which is the point.
func Process(path string) (pid int, start uint64, ok bool) {
	dir, session, ok := statusDir(path)
	if !ok {
		return 0, 0, false
	}
	st, ok := sessionStatus(dir, session)
	if !ok || st.PID <= 1 {
		return 0, 0, false
	}
	start, err := strconv.ParseUint(st.ProcStart, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return st.PID, start, true
}

// statusDir is the sessions folder beside the projects folder that holds
// the transcript at path (<config>/projects/<project>/<session>.jsonl), and
// the session id the transcript is named by.
func statusDir(path string) (dir, session string, ok bool) {
	if !filepath.IsAbs(path) || !strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return "", "", false
	}
	path = filepath.Clean(path)
	session = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	projects := filepath.Dir(filepath.Dir(path))
	if session == "" || filepath.Base(projects) != "projects" {
		return "", "", false
	}
	return filepath.Join(filepath.Dir(projects), "sessions"), session, true
}

// sessionStatus finds and reads session's status file in dir: the one
// remembered, else the first of dir's first statusScan *.json files whose
// sessionId is session.
func sessionStatus(dir, session string) (statusFile, bool) {
	statusFiles.Lock()
	known := statusFiles.m[session]
	statusFiles.Unlock()
	if known != "" && filepath.Dir(known) == dir {
		if st, ok := readStatus(known); ok && st.SessionID == session {
			return st, true
		}
	}
	d, err := openNonBlocking(dir)
	if err != nil {
		return statusFile{}, false
	}
	entries, _ := d.ReadDir(statusScan)
	d.Close()
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if st, ok := readStatus(p); ok && st.SessionID == session {
			statusFiles.Lock()
			if len(statusFiles.m) >= statusCacheMax {
				clear(statusFiles.m)
			}
			statusFiles.m[session] = p
			statusFiles.Unlock()
			return st, true
		}
	}
	return statusFile{}, false
}

// readStatus reads one status file: regular (checked before and after
// opening it non-blocking), at most statusMax bytes, JSON.
func readStatus(path string) (statusFile, bool) {
	var st statusFile
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() || fi.Size() > statusMax {
		return st, false
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return st, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return st, false
	}
	buf, err := io.ReadAll(io.LimitReader(f, statusMax+1))
	if err != nil || len(buf) > statusMax {
		return st, false
	}
	return st, parseStatus(buf, &st)
}

// parseStatus decodes a status file's bytes.
func parseStatus(buf []byte, st *statusFile) bool {
	return json.Unmarshal(buf, st) == nil
}
