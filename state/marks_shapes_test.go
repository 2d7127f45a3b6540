package state

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every shape the contract's words allow for a close-out mark is read
// (docs/contract.md §8): the window's own {sessionId, state} object, an
// array of them, the keyed map notch-web writes, each with or without at,
// and several JSON values one after another (a window that appends).
func TestReadMarksEveryShape(t *testing.T) {
	fin := func(at int64) Mark { return Mark{State: MarkFinished, At: at} }
	cases := []struct {
		name  string
		data  string
		want  map[string]Mark
		shape MarkShape
		bad   string // a word the error names; "" = no error
	}{
		{"the seed's object", `{"sessionId":"s1","state":"finished"}`, map[string]Mark{"s1": fin(0)}, ShapeObject, ""},
		{"the seed's object with at", `{"sessionId":"s1","state":"finished","at":5}`, map[string]Mark{"s1": fin(5)}, ShapeObject, ""},
		{"an object with fields of its own", `{"sessionId":"s1","state":"finished","by":"window"}`, map[string]Mark{"s1": fin(0)}, ShapeObject, ""},
		{"an array", `[{"sessionId":"s1","state":"finished"},{"sessionId":"s2","state":"finished","at":7}]`, map[string]Mark{"s1": fin(0), "s2": fin(7)}, ShapeArray, ""},
		{"an array: the later mark of a session wins", `[{"sessionId":"s1","state":"finished","at":1},{"sessionId":"s1","state":"finished","at":2}]`, map[string]Mark{"s1": fin(2)}, ShapeArray, ""},
		{"an empty array", `[]`, map[string]Mark{}, ShapeArray, ""},
		{"the keyed map", `{"s1":{"state":"finished","at":5}}`, map[string]Mark{"s1": fin(5)}, ShapeKeyed, ""},
		{"the keyed map without at", `{"s1":{"state":"finished"}}`, map[string]Mark{"s1": fin(0)}, ShapeKeyed, ""},
		{"the keyed map, at null", `{"s1":{"state":"finished","at":null}}`, map[string]Mark{"s1": fin(0)}, ShapeKeyed, ""},
		{"a keyed session named sessionId", `{"sessionId":{"state":"finished","at":3}}`, map[string]Mark{"sessionId": fin(3)}, ShapeKeyed, ""},
		{"values one after another", "{\"sessionId\":\"s1\",\"state\":\"finished\"}\n{\"sessionId\":\"s2\",\"state\":\"finished\"}\n", map[string]Mark{"s1": fin(0), "s2": fin(0)}, ShapeStream, ""},
		{"an object then the keyed map", `{"sessionId":"s1","state":"finished"} {"s2":{"state":"finished","at":9}}`, map[string]Mark{"s1": fin(0), "s2": fin(9)}, ShapeStream, ""},
		{"a byte order mark first", "\ufeff" + `{"sessionId":"s1","state":"finished"}`, map[string]Mark{"s1": fin(0)}, ShapeObject, ""},
		{"empty", ``, map[string]Mark{}, ShapeNone, ""},
		{"null", `null`, map[string]Mark{}, ShapeKeyed, ""},
		// What is not a mark is named, and never hides the marks beside it.
		{"an array with an odd element", `[{"sessionId":"s1","state":"finished"},7,{"sessionId":""}]`, map[string]Mark{"s1": fin(0)}, ShapeArray, "[1], [2]"},
		{"a keyed map with odd entries", `{"s1":{"state":"finished"},"odd":7,"f":{"state":"finished","at":1.5}}`, map[string]Mark{"s1": fin(0)}, ShapeKeyed, `"f", "odd"`},
		{"an object whose state is not text", `{"sessionId":"s1","state":7}`, map[string]Mark{}, ShapeObject, "[0]"},
		{"an object whose id is too long", `{"sessionId":"` + strings.Repeat("x", MaxSessionID+1) + `","state":"finished"}`, map[string]Mark{}, ShapeObject, "[0]"},
		{"a number", `7`, map[string]Mark{}, ShapeNone, "not a JSON object or array"},
		{"a truncated tail keeps what came before", `{"sessionId":"s1","state":"finished"} {"sessionId":"s2","sta`, map[string]Mark{"s1": fin(0)}, ShapeStream, "unexpected EOF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, shape, err := parseMarkFile([]byte(tc.data))
			if tc.bad == "" && err != nil {
				t.Fatalf("error %v", err)
			}
			if tc.bad != "" && (!errors.Is(err, ErrMarksCorrupt) || !strings.Contains(err.Error(), tc.bad)) {
				t.Fatalf("error %v, want ErrMarksCorrupt naming %s", err, tc.bad)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("marks %v, want %v", got, tc.want)
			}
			if shape != tc.shape {
				t.Errorf("shape %v, want %v", shape, tc.shape)
			}
		})
	}
}

// Merging a mark into a file the window wrote in its own shape keeps
// every mark in it (the file becomes the keyed map); a file with something
// in it that is not a mark is also kept aside whole, with a warning.
func TestMergeMarkIntoEveryShapeLosesNoMark(t *testing.T) {
	cases := []struct {
		name     string
		data     string
		want     map[string]Mark
		keptAway bool
	}{
		{"the seed's object", `{"sessionId":"w1","state":"finished","by":"window"}`, map[string]Mark{"w1": {MarkFinished, 0}}, false},
		{"an array", `[{"sessionId":"w1","state":"finished"},{"sessionId":"w2","state":"finished","at":3}]`, map[string]Mark{"w1": {MarkFinished, 0}, "w2": {MarkFinished, 3}}, false},
		{"values one after another", `{"sessionId":"w1","state":"finished"}` + "\n" + `{"w2":{"state":"finished"}}`, map[string]Mark{"w1": {MarkFinished, 0}, "w2": {MarkFinished, 0}}, false},
		{"an array with an odd element", `[{"sessionId":"w1","state":"finished"},"odd"]`, map[string]Mark{"w1": {MarkFinished, 0}}, true},
		{"a truncated tail", `{"sessionId":"w1","state":"finished"} {"sess`, map[string]Mark{"w1": {MarkFinished, 0}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := marksPath(t)
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(tc.data), 0o644)
			err := MergeMark(path, "mine", Mark{State: MarkFinished, At: 42})
			var ce *CorruptMarksError
			if tc.keptAway {
				if !errors.As(err, &ce) {
					t.Fatalf("MergeMark = %v, want the original kept aside", err)
				}
				if kept, _ := os.ReadFile(ce.KeptAs); string(kept) != tc.data {
					t.Errorf("kept %q, want %q", kept, tc.data)
				}
			} else if err != nil {
				t.Fatalf("MergeMark = %v", err)
			}
			got, shape, err := parseMarkFile(mustRead(t, path))
			if err != nil || shape != ShapeKeyed {
				t.Fatalf("after the merge: %v, shape %v", err, shape)
			}
			tc.want["mine"] = Mark{MarkFinished, 42}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("after the merge %v, want %v", got, tc.want)
			}
		})
	}
	// The window's own fields ride along into the keyed entry.
	path := marksPath(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"sessionId":"w1","state":"finished","by":"window"}`), 0o644)
	if err := MergeMark(path, "mine", Mark{State: MarkFinished, At: 42}); err != nil {
		t.Fatal(err)
	}
	if s := string(mustRead(t, path)); !strings.Contains(s, `"by": "window"`) || strings.Contains(s, "sessionId") {
		t.Errorf("the window's entry became:\n%s", s)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
