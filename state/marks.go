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

// MaxMarksFile bounds what ReadMarks reads, and so what MergeMark ever
// writes: a file the host cannot read back would fail every close-out.
const MaxMarksFile = 4 << 20

// maxMarksRepair bounds what MergeMark reads: more than MaxMarksFile, so
// that a file another writer let grow too large is pruned back under it
// rather than refused forever.
const maxMarksRepair = 64 << 20

// MarkRetention is how long a mark is kept: MergeMark prunes marks older
// than this (by their at, against the mark being written). A close-out
// matters while its session could still be on a board; a week is ample.
const MarkRetention = 7 * 24 * time.Hour

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
// Marks older than MarkRetention before m.At are pruned, and the file is
// never written larger than MaxMarksFile, what ReadMarks reads: when it
// would be, the oldest marks go first (entries that are not marks are
// never dropped; if they alone are too large the merge fails with
// ErrTooLarge and the file is left alone). A file already larger than
// MaxMarksFile is read anyway (up to a bound) and pruned back under it.
//
// If the existing file cannot be parsed at all, its bytes are first kept
// beside it as manual.json.corrupt-<ms>, the new file holds only this mark,
// and a *CorruptMarksError (wrapping ErrMarksCorrupt) is returned as a
// warning: the mark was written.
func MergeMark(path, sessionID string, m Mark) error {
	if !ValidSessionID(sessionID) {
		return fmt.Errorf("%w: session id must be 1 to %d bytes of text", ErrInvalidMark, MaxSessionID)
	}
	if m.State == "" {
		return fmt.Errorf("%w: state is required", ErrInvalidMark)
	}
	unlock, err := fsx.Lock(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()

	fsx.RemoveStaleTemps(path, time.Minute, time.Now())
	data, err := fsx.ReadFileLimit(path, maxMarksRepair)
	var perr error
	switch {
	case errors.Is(err, fsx.ErrTooLarge):
		perr = fmt.Errorf("%w: %v", ErrMarksCorrupt, err)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	var warning error
	var out []byte
	if perr == nil {
		out, perr = mergeMark(data, sessionID, m)
	}
	if errors.Is(perr, ErrTooLarge) {
		return fmt.Errorf("merging a mark into %s: %w", path, perr)
	}
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
	return encodeMarks(prune(raw, id, m.At))
}

// prune drops from raw the marks (other than keep's) older than
// MarkRetention before now. Entries that are not marks, or carry no at,
// are someone else's business and stay.
func prune(raw map[string]json.RawMessage, keep string, now int64) map[string]json.RawMessage {
	cutoff := now - MarkRetention.Milliseconds()
	for k, v := range raw {
		if at, ok := markAt(v); ok && k != keep && at < cutoff {
			delete(raw, k)
		}
	}
	return raw
}

// markAt reads the at of an entry that is a mark.
func markAt(v json.RawMessage) (int64, bool) {
	var mk Mark
	if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &mk) != nil || mk.At <= 0 {
		return 0, false
	}
	return mk.At, true
}

// encodeMarks writes the file's bytes, dropping the oldest marks until it
// fits in MaxMarksFile (the newest mark is the one being written, so it
// stays). It fails with ErrTooLarge only when what is left cannot be
// dropped.
func encodeMarks(raw map[string]json.RawMessage) ([]byte, error) {
	out, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding marks: %w", err)
	}
	if len(out)+1 <= MaxMarksFile {
		return append(out, '\n'), nil
	}
	type aged struct {
		id   string
		at   int64
		size int
	}
	var marks []aged
	for k, v := range raw {
		if at, ok := markAt(v); ok {
			marks = append(marks, aged{k, at, len(k) + len(v) + 8}) // "k": v, with indent and comma
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].at < marks[j].at })
	size := len(out) + 1
	// Keep the newest: never drop the last mark (the one being written is
	// the newest of all).
	for _, mk := range marks[:max(0, len(marks)-1)] {
		if size <= MaxMarksFile*15/16 { // a margin: the sizes above are estimates
			break
		}
		delete(raw, mk.id)
		size -= mk.size
	}
	if out, err = json.MarshalIndent(raw, "", "  "); err != nil {
		return nil, fmt.Errorf("encoding marks: %w", err)
	}
	if len(out)+1 > MaxMarksFile {
		return nil, fmt.Errorf("%w: the entries that are not close-out marks alone exceed %d bytes", ErrTooLarge, MaxMarksFile)
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
