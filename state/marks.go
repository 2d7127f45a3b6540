package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
)

// The close-out marks file, $DSH_HOME/state/session-finished/manual.json,
// is where a close-out goes when there is no finishedUrl (the contract:
// "NULL ⇒ it writes the same mark into manual.json"). The contract does not
// fix its shape; this package reads and writes one JSON object keyed by
// session id:
//
//	{
//	  "session-db65f92b-…": {"state": "finished", "at": 1790000000000},
//	  "session-4e1a…":      {"state": "finished", "at": 1790000004200, "by": "window"}
//	}
//
// Fields beyond state and at, and entries this package cannot read, belong
// to whoever wrote them and survive every MergeMark.

// MaxMarksFile bounds what ReadMarks and MergeMark read.
const MaxMarksFile = 4 << 20

// MarkFinished is the close-out state the ✕ writes.
const MarkFinished = "finished"

// Mark is one session's close-out mark in manual.json.
type Mark struct {
	State string `json:"state"`
	At    int64  `json:"at"` // ms since the epoch
}

// CorruptMarksError is MergeMark's warning that manual.json could not be
// parsed: its bytes were kept in KeptAs and the file was replaced by one
// holding the new mark. The mark WAS written; the caller logs this.
type CorruptMarksError struct {
	Path   string
	KeptAs string
	Err    error // wraps ErrMarksCorrupt
}

// Error names the file, why it is corrupt and where its bytes went.
func (e *CorruptMarksError) Error() string {
	return fmt.Sprintf("%s: %v (its bytes were kept as %s and the file was replaced)", e.Path, e.Err, e.KeptAs)
}

// Unwrap lets errors.Is find ErrMarksCorrupt.
func (e *CorruptMarksError) Unwrap() error { return e.Err }

// ReadMarks reads manual.json. A missing or empty file is no marks (an
// empty map and nil). A file that is not a JSON object is an error wrapping
// ErrMarksCorrupt. An entry that is not a mark object is left out of the
// map and named in an error wrapping ErrMarksCorrupt, returned together
// with every mark that could be read, so one odd entry does not hide the
// others' close-outs.
func ReadMarks(path string) (map[string]Mark, error) {
	data, err := fsx.ReadFileLimit(path, MaxMarksFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Mark{}, nil
	}
	if err != nil {
		return nil, err
	}
	marks, err := parseMarks(data)
	if err != nil {
		err = fmt.Errorf("reading %s: %w", path, err)
	}
	return marks, err
}

// parseMarksRaw parses the top level, keeping each entry's bytes.
func parseMarksRaw(data []byte) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, bom))
	if len(trimmed) == 0 {
		// An empty file holds no marks, and keeping its nothing aside as
		// "corrupt" would only add noise.
		return map[string]json.RawMessage{}, nil
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: not a JSON object", ErrMarksCorrupt)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrMarksCorrupt, strings.TrimPrefix(err.Error(), "json: "))
	}
	return raw, nil
}

// parseMarks is ReadMarks without the file (and the fuzz target's subject).
func parseMarks(data []byte) (map[string]Mark, error) {
	raw, err := parseMarksRaw(data)
	if err != nil {
		return nil, err
	}
	marks := make(map[string]Mark, len(raw))
	var bad []string
	for id, v := range raw {
		var m Mark
		if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &m) != nil {
			bad = append(bad, short(id))
			continue
		}
		marks[id] = m
	}
	if bad != nil {
		sort.Strings(bad)
		return marks, fmt.Errorf("%w: entries that are not marks: %s", ErrMarksCorrupt, strings.Join(bad, ", "))
	}
	return marks, nil
}

// MergeMark sets one session's mark in manual.json without clobbering
// anything else: under an exclusive lock on path+".lock" (fsx.Lock) it
// reads the file, replaces the session's state and at (keeping that
// entry's other fields and every other entry byte for byte in value) and
// writes the result atomically and durably (fsx.WriteFileAtomic), so
// concurrent mergers in any number of processes never lose a mark. A lock
// held too long by another merger fails it with fsx.ErrLockTimeout.
//
// If the existing file cannot be parsed at all, its bytes are first kept
// beside it as manual.json.corrupt-<ms>, the new file holds only this mark,
// and a *CorruptMarksError (wrapping ErrMarksCorrupt) is returned as a
// warning: the mark was written.
func MergeMark(path, sessionID string, m Mark) error {
	if sessionID == "" || len(sessionID) > MaxSessionID {
		return fmt.Errorf("%w: session id must be 1 to %d bytes", ErrInvalidMark, MaxSessionID)
	}
	if m.State == "" {
		return fmt.Errorf("%w: state is required", ErrInvalidMark)
	}
	unlock, err := fsx.Lock(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()

	data, err := fsx.ReadFileLimit(path, MaxMarksFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var warning error
	out, perr := mergeMark(data, sessionID, m)
	if perr != nil {
		kept, err := keepCorrupt(path, data, time.Now())
		if err != nil {
			return fmt.Errorf("merging a mark into %s: the file is corrupt and could not be kept aside, so it was left alone: %w", path, err)
		}
		warning = &CorruptMarksError{Path: path, KeptAs: kept, Err: perr}
		if out, perr = mergeMark(nil, sessionID, m); perr != nil {
			return perr // cannot happen: nil is an empty file
		}
	}
	if err := fsx.WriteFileAtomic(path, out); err != nil {
		return err
	}
	return warning
}

// mergeMark is MergeMark's pure half: the new file's bytes. nil data is a
// missing file; data that does not parse is an ErrMarksCorrupt error.
func mergeMark(data []byte, id string, m Mark) ([]byte, error) {
	raw := map[string]json.RawMessage{}
	if data != nil {
		var err error
		if raw, err = parseMarksRaw(data); err != nil {
			return nil, err
		}
		if raw == nil { // the file said null
			raw = map[string]json.RawMessage{}
		}
	}
	var entry map[string]json.RawMessage
	if old := raw[id]; len(old) > 0 && old[0] == '{' {
		_ = json.Unmarshal(old, &entry) // valid JSON object: cannot fail
	}
	if entry == nil {
		entry = map[string]json.RawMessage{}
	}
	// Go's decoder matches keys case-insensitively, so a stray "State" (or
	// "ſtate") would compete with the value written here; it is the same
	// field to any reader, not an unknown one to keep.
	for k := range entry {
		if strings.EqualFold(k, "state") || strings.EqualFold(k, "at") {
			delete(entry, k)
		}
	}
	entry["state"], _ = json.Marshal(m.State)
	entry["at"] = strconv.AppendInt(nil, m.At, 10)
	var err error
	if raw[id], err = json.Marshal(entry); err != nil {
		return nil, fmt.Errorf("encoding mark %s: %w", short(id), err)
	}
	out, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding marks: %w", err)
	}
	return append(out, '\n'), nil
}

// keepCorrupt saves a corrupt file's bytes beside it, under a name no one
// else holds, before the file is replaced.
func keepCorrupt(path string, data []byte, now time.Time) (string, error) {
	base := path + ".corrupt-" + strconv.FormatInt(now.UnixMilli(), 10)
	for i := 0; i < 100; i++ {
		name := base
		if i > 0 {
			name += "-" + strconv.Itoa(i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(data)
		serr := f.Sync()
		if cerr := f.Close(); werr == nil {
			werr = errors.Join(serr, cerr)
		}
		if werr != nil {
			os.Remove(name)
			return "", werr
		}
		return name, nil
	}
	return "", fmt.Errorf("no free name beside %s", path)
}
