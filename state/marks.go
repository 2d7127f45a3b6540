package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// "NULL ⇒ it writes the same mark into manual.json", the mark being the
// {sessionId, state:"finished"} the window would have POSTed). The
// contract does not fix the file's shape, so every shape its words allow
// is read (MarkShape): that object, an array of them, several JSON values
// one after another, and the object keyed by session id this package
// writes:
//
//	{
//	  "session-db65f92b-…": {"state": "finished", "at": 1790000000000},
//	  "session-4e1a…":      {"state": "finished", "by": "window"}
//	}
//
// at (ms since the epoch) is optional everywhere. Fields beyond state and
// at, and keyed entries this package cannot read, belong to whoever wrote
// them and survive every MergeMark; a file in another shape becomes the
// keyed map on the next MergeMark, every mark in it carried over.

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
	At    int64  `json:"at"` // ms since the epoch; 0: the mark carries none
}

// MarkShape is how manual.json holds its marks.
type MarkShape int

// The shapes of manual.json.
const (
	ShapeNone   MarkShape = iota // missing, empty, or not JSON at the top
	ShapeKeyed                   // {"<id>": {state, at?}, …}: what MergeMark writes
	ShapeObject                  // {sessionId, state, at?}: one mark, the window's own words
	ShapeArray                   // [{sessionId, state, at?}, …]
	ShapeStream                  // several JSON values one after another (a writer that appends)
)

// String names the shape.
func (s MarkShape) String() string {
	switch s {
	case ShapeKeyed:
		return "keyed"
	case ShapeObject:
		return "object"
	case ShapeArray:
		return "array"
	case ShapeStream:
		return "stream"
	}
	return "none"
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

// ReadMarks reads manual.json's marks (ReadMarkFile without the shape).
func ReadMarks(path string) (map[string]Mark, error) {
	marks, _, err := ReadMarkFile(path)
	return marks, err
}

// ReadMarkFile reads manual.json in any of its shapes. A missing or empty
// file is no marks (an empty map and nil). Something that is not a mark —
// a keyed entry, an array element, a value, or a broken tail — is named in
// an error wrapping ErrMarksCorrupt, returned together with every mark
// that could be read, so one odd entry never hides the others' close-outs.
// Of two marks of one session the later in the file wins.
func ReadMarkFile(path string) (map[string]Mark, MarkShape, error) {
	data, err := fsx.ReadFileLimit(path, MaxMarksFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Mark{}, ShapeNone, nil
	}
	if err != nil {
		return nil, ShapeNone, err
	}
	marks, shape, err := parseMarkFile(data)
	if err != nil {
		err = fmt.Errorf("reading %s: %w", path, err)
	}
	return marks, shape, err
}

// parseMarks is parseMarkFile without the shape.
func parseMarks(data []byte) (map[string]Mark, error) {
	marks, _, err := parseMarkFile(data)
	return marks, err
}

// parseMarkFile is ReadMarkFile without the file (and the fuzz target's
// subject).
func parseMarkFile(data []byte) (map[string]Mark, MarkShape, error) {
	raw, shape, bad, err := toKeyed(data)
	marks := make(map[string]Mark, len(raw))
	var odd []string
	for id, v := range raw {
		if m, ok := decodeMark(v); ok {
			marks[id] = m
		} else {
			odd = append(odd, short(id))
		}
	}
	sort.Strings(odd)
	bad = append(odd, bad...)
	switch {
	case err != nil && len(bad) > 0:
		err = fmt.Errorf("%w; entries that are not marks: %s", err, strings.Join(bad, ", "))
	case bad != nil:
		err = fmt.Errorf("%w: entries that are not marks: %s", ErrMarksCorrupt, strings.Join(bad, ", "))
	}
	return marks, shape, err
}

// decodeMark reads a keyed entry: an object whose state is text and whose
// at, when there, a whole number.
func decodeMark(v json.RawMessage) (Mark, bool) {
	var m Mark
	if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &m) != nil {
		return Mark{}, false
	}
	return m, true
}

// toKeyed reads manual.json in any shape as the keyed map: a keyed
// value's entries as they are (marks or not), and each {sessionId, …}
// mark as the entry of its id (its other fields kept, sessionId left
// out). bad names the objects and array elements that are not marks (they
// cannot be keyed, so they are not in raw); err (wrapping ErrMarksCorrupt)
// says why the file stopped being readable, raw then holding what came
// before.
func toKeyed(data []byte) (raw map[string]json.RawMessage, shape MarkShape, bad []string, err error) {
	raw = map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, bom)))
	values := 0
	for ; ; values++ {
		var v json.RawMessage
		if derr := dec.Decode(&v); derr == io.EOF {
			break
		} else if derr != nil {
			err = fmt.Errorf("%w: %s", ErrMarksCorrupt, strings.TrimPrefix(derr.Error(), "json: "))
			if values > 0 {
				shape = ShapeStream // a value, then a broken one
			}
			break
		}
		var this MarkShape
		switch v[0] {
		case 'n': // null: no marks
			this = ShapeKeyed
		case '[':
			this = ShapeArray
			var list []json.RawMessage
			_ = json.Unmarshal(v, &list) // a valid JSON array: cannot fail
			for i, el := range list {
				if id, entry, ok := markObject(el); ok {
					raw[id] = entry
				} else {
					bad = append(bad, fmt.Sprintf("[%d]", i))
				}
			}
		case '{':
			var obj map[string]json.RawMessage
			_ = json.Unmarshal(v, &obj) // a valid JSON object: cannot fail
			if sid := obj["sessionId"]; len(sid) > 0 && sid[0] == '"' {
				this = ShapeObject
				if id, entry, ok := markObject(v); ok {
					raw[id] = entry
				} else {
					bad = append(bad, fmt.Sprintf("[%d]", values))
				}
				break
			}
			this = ShapeKeyed
			for id, e := range obj {
				raw[id] = e
			}
		default:
			err = fmt.Errorf("%w: not a JSON object or array", ErrMarksCorrupt)
		}
		if err != nil {
			break
		}
		if values == 0 {
			shape = this
		} else {
			shape = ShapeStream
		}
	}
	return raw, shape, bad, err
}

// markObject reads one {sessionId, state, at?} mark: the session's id and
// its keyed entry (every field but sessionId).
func markObject(v json.RawMessage) (string, json.RawMessage, bool) {
	var m struct {
		SessionID string `json:"sessionId"`
		Mark
	}
	if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &m) != nil || !ValidSessionID(m.SessionID) {
		return "", nil, false
	}
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(v, &obj) // an object that decoded above: cannot fail
	for k := range obj {
		// Go's decoder matches keys case-insensitively: any spelling of
		// sessionId was the id, not a field to keep.
		if strings.EqualFold(k, "sessionId") {
			delete(obj, k)
		}
	}
	entry, err := json.Marshal(obj)
	if err != nil {
		return "", nil, false
	}
	return m.SessionID, entry, true
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
// A file in another shape (ReadMarkFile) becomes the keyed map, every mark
// in it carried over. When something in it cannot be carried over (it does
// not parse to the end, or an array element is not a mark), its bytes are
// first kept beside it as manual.json.corrupt-<ms>, the new file holds the
// marks that could be read and this one, and a *CorruptMarksError
// (wrapping ErrMarksCorrupt) is returned as a warning: the mark was
// written.
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
		out, perr, err = mergeMark(data, sessionID, m)
		if err != nil {
			return fmt.Errorf("merging a mark into %s: %w", path, err)
		}
	} else if out, _, err = mergeMark(nil, sessionID, m); err != nil {
		return err // cannot happen: nil is an empty file
	}
	if perr != nil {
		// Something in the file could not be carried over (the marks that
		// could were): its bytes are kept whole beside it first.
		kept, err := keepCorrupt(path, data, time.Now())
		if err != nil {
			return fmt.Errorf("merging a mark into %s: the file is corrupt and could not be kept aside, so it was left alone: %w", path, err)
		}
		warning = &CorruptMarksError{Path: path, KeptAs: kept, Err: perr}
	}
	if err := fsx.WriteFileAtomic(path, out); err != nil {
		return err
	}
	return warning
}

// mergeMark is MergeMark's pure half: the new file's bytes, the keyed map
// with every mark data held in any shape, and the mark set. nil data is a
// missing file. lossy (wrapping ErrMarksCorrupt) says what of data could
// not be carried over: a broken tail, an array element or object that is
// not a mark. err is ErrTooLarge when what must stay does not fit.
func mergeMark(data []byte, id string, m Mark) (out []byte, lossy, err error) {
	raw, _, bad, lossy := toKeyed(data)
	if bad != nil {
		lossy = errors.Join(lossy, fmt.Errorf("%w: entries that are not marks: %s", ErrMarksCorrupt, strings.Join(bad, ", ")))
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
	if raw[id], err = json.Marshal(entry); err != nil {
		return nil, lossy, fmt.Errorf("encoding mark %s: %w", short(id), err)
	}
	out, err = encodeMarks(prune(raw, id, m.At))
	return out, lossy, err
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
