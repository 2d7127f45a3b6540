package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func marksPath(t *testing.T) string {
	return filepath.Join(t.TempDir(), "state", "session-finished", "manual.json")
}

func TestReadMarksMissingAndEmpty(t *testing.T) {
	path := marksPath(t)
	m, err := ReadMarks(path)
	if err != nil || m == nil || len(m) != 0 {
		t.Fatalf("missing file: %v, %v; want an empty map and nil", m, err)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(" \n"), 0o644)
	if m, err := ReadMarks(path); err != nil || len(m) != 0 {
		t.Fatalf("empty file: %v, %v", m, err)
	}
}

func TestMergeMarkCreatesAndUpdates(t *testing.T) {
	path := marksPath(t)
	if err := MergeMark(path, "s1", Mark{State: MarkFinished, At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := MergeMark(path, "s2", Mark{State: MarkFinished, At: t0 + 1}); err != nil {
		t.Fatal(err)
	}
	if err := MergeMark(path, "s1", Mark{State: MarkFinished, At: t0 + 2}); err != nil {
		t.Fatal(err)
	}
	m, err := ReadMarks(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Mark{"s1": {MarkFinished, t0 + 2}, "s2": {MarkFinished, t0 + 1}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("marks = %v, want %v", m, want)
	}
}

// TestMergeMarkPreservesOthers: whatever else is in manual.json, its other
// fields and entries survive a merge, in value.
func TestMergeMarkPreservesOthers(t *testing.T) {
	path := marksPath(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	before := `{
  "s1": {"state": "finished", "at": 1, "by": "window", "extra": {"deep": [1, 2, {"x": null}]}},
  "s2": {"state": "finished", "at": 2, "note": "kept"},
  "odd": true,
  "list": [1, "two"]
}`
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MergeMark(path, "s1", Mark{State: MarkFinished, At: 99}); err != nil {
		t.Fatal(err)
	}
	if err := MergeMark(path, "s3", Mark{State: MarkFinished, At: 3}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	var got, want map[string]any
	if err := json.Unmarshal(after, &got); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(`{
  "s1": {"state": "finished", "at": 99, "by": "window", "extra": {"deep": [1, 2, {"x": null}]}},
  "s2": {"state": "finished", "at": 2, "note": "kept"},
  "s3": {"state": "finished", "at": 3},
  "odd": true,
  "list": [1, "two"]
}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after merging:\n%s", after)
	}
	// ReadMarks gives the marks it can read and names the entries it
	// cannot, without hiding the others.
	m, err := ReadMarks(path)
	if !errors.Is(err, ErrMarksCorrupt) || !strings.Contains(err.Error(), `"list", "odd"`) {
		t.Errorf("ReadMarks err = %v, want ErrMarksCorrupt naming list and odd", err)
	}
	if len(m) != 3 || m["s1"].At != 99 || m["s3"].State != MarkFinished {
		t.Errorf("ReadMarks = %v", m)
	}
}

func TestMergeMarkKeepsACorruptFileBeside(t *testing.T) {
	for name, corrupt := range map[string]string{
		"truncated":      `{"s1": {"state": "fini`,
		"not an object":  `["s1"]`,
		"binary garbage": "\x00\xff\xfe",
	} {
		t.Run(name, func(t *testing.T) {
			path := marksPath(t)
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(corrupt), 0o644)
			if _, err := ReadMarks(path); !errors.Is(err, ErrMarksCorrupt) {
				t.Errorf("ReadMarks = %v, want ErrMarksCorrupt", err)
			}
			err := MergeMark(path, "s2", Mark{State: MarkFinished, At: 5})
			var ce *CorruptMarksError
			if !errors.As(err, &ce) || !errors.Is(err, ErrMarksCorrupt) {
				t.Fatalf("MergeMark = %v, want a *CorruptMarksError warning", err)
			}
			if !strings.HasPrefix(filepath.Base(ce.KeptAs), "manual.json.corrupt-") || filepath.Dir(ce.KeptAs) != filepath.Dir(path) {
				t.Errorf("kept as %s", ce.KeptAs)
			}
			if kept, _ := os.ReadFile(ce.KeptAs); string(kept) != corrupt {
				t.Errorf("kept bytes = %q, want the original %q", kept, corrupt)
			}
			// The mark was written despite the warning.
			if m, err := ReadMarks(path); err != nil || !reflect.DeepEqual(m, map[string]Mark{"s2": {MarkFinished, 5}}) {
				t.Errorf("after replacing: %v, %v", m, err)
			}
		})
	}
}

// TestMergeMarkConcurrent: many goroutines merging at once (each through
// its own lock file handle, as separate processes would) lose no mark.
func TestMergeMarkConcurrent(t *testing.T) {
	path := marksPath(t)
	const workers, each = 16, 8
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if err := MergeMark(path, fmt.Sprintf("w%02d-%d", w, i), Mark{State: MarkFinished, At: int64(w*100 + i)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	m, err := ReadMarks(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != workers*each {
		t.Fatalf("%d marks survived of %d", len(m), workers*each)
	}
	for w := range workers {
		for i := range each {
			if got := m[fmt.Sprintf("w%02d-%d", w, i)]; got.At != int64(w*100+i) {
				t.Errorf("w%02d-%d = %+v", w, i, got)
			}
		}
	}
}

func TestMergeMarkRefusesInvalid(t *testing.T) {
	path := marksPath(t)
	for name, call := range map[string]func() error{
		"no id":    func() error { return MergeMark(path, "", Mark{State: MarkFinished}) },
		"long id":  func() error { return MergeMark(path, strings.Repeat("x", 201), Mark{State: MarkFinished}) },
		"no state": func() error { return MergeMark(path, "s1", Mark{At: 1}) },
	} {
		if err := call(); !errors.Is(err, ErrInvalidMark) {
			t.Errorf("%s: %v, want ErrInvalidMark", name, err)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused mark wrote the file")
	}
}

// Marks older than MarkRetention are pruned when writing; recent marks of
// other writers, and entries that are not marks, survive untouched.
func TestMergeMarkPrunesOldMarks(t *testing.T) {
	path := marksPath(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	week := MarkRetention.Milliseconds()
	before := fmt.Sprintf(`{
  "old": {"state": "finished", "at": %d, "by": "window"},
  "recent": {"state": "finished", "at": %d, "by": "window", "extra": [1]},
  "odd": true
}`, t0-week-1, t0-week+1000)
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MergeMark(path, "new", Mark{State: MarkFinished, At: t0}); err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["old"]; ok {
		t.Error("a mark older than 7 days survived the write")
	}
	var recent map[string]any
	_ = json.Unmarshal(got["recent"], &recent)
	if string(got["odd"]) != "true" || recent["by"] != "window" || !reflect.DeepEqual(recent["extra"], []any{1.0}) {
		t.Errorf("recent marks and other entries must survive intact:\n%s", data)
	}
	if _, ok := got["new"]; !ok {
		t.Error("the new mark is missing")
	}
}

// A flood of marks (the ✕ can be POSTed for any id) never makes a file the
// host cannot read back: the oldest marks go first, and a file that is
// already too large is repaired rather than failing every close-out.
func TestMergeMarkNeverWritesWhatItCannotRead(t *testing.T) {
	path := marksPath(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	var b strings.Builder
	b.WriteString("{")
	for i := range 80_000 { // ~5 MiB of marks, all recent
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"flood-%06d-%s":{"state":"finished","at":%d}`, i, strings.Repeat("x", 20), t0-int64(80_000-i))
	}
	b.WriteString("}")
	if b.Len() <= MaxMarksFile {
		t.Fatalf("the flood is only %d bytes", b.Len())
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMarks(path); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadMarks of the flood: %v, want ErrTooLarge", err)
	}
	if err := MergeMark(path, "mine", Mark{State: MarkFinished, At: t0}); err != nil {
		t.Fatalf("a close-out must not fail forever on a flooded file: %v", err)
	}
	info, _ := os.Stat(path)
	if info.Size() > MaxMarksFile {
		t.Fatalf("wrote %d bytes, more than ReadMarks reads (%d)", info.Size(), MaxMarksFile)
	}
	m, err := ReadMarks(path)
	if err != nil {
		t.Fatal(err)
	}
	if m["mine"].At != t0 {
		t.Error("the new mark is missing")
	}
	if _, ok := m["flood-079999-"+strings.Repeat("x", 20)]; !ok {
		t.Error("the newest of the others' marks must be kept")
	}
	if _, ok := m["flood-000000-"+strings.Repeat("x", 20)]; ok {
		t.Error("the oldest marks go first")
	}
}
