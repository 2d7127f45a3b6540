package window

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParseQuit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64 // 0: malformed
	}{
		{`{"wallMs": 1790000000000}`, 1790000000000},
		{` {"wallMs":1790000000000} ` + "\n", 1790000000000},
		{`{"wallMs": 1.79e12}`, 1790000000000},                      // a whole number, written as a float
		{`{"wallMs": 1790000000000, "why": "tray"}`, 1790000000000}, // fields the contract may add
		{`{"wallMs": 1.5}`, 0},
		{`{"wallMs": "1790000000000"}`, 0},
		{`{"wallMs": null}`, 0},
		{`{"wallMs": 0}`, 0},
		{`{"wallMs": -5}`, 0},
		{`{"wallMs": 9007199254740992}`, 0}, // past 2^53-1
		{`{"wallMs": 1e300}`, 0},
		{`{"WALLMS": 1790000000000}`, 0}, // the key is exact
		{`{}`, 0},
		{`null`, 0},
		{`[]`, 0},
		{`1790000000000`, 0},
		{``, 0},
		{`{"wallMs": 1790000000000} {}`, 0},
		{`{"wallMs": 1790000000000`, 0},
	} {
		got, err := parseQuit([]byte(tc.in))
		if tc.want == 0 {
			if !errors.Is(err, errQuitMalformed) {
				t.Errorf("parseQuit(%q) = %d, %v; want errQuitMalformed", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseQuit(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestReadQuit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, QuitFile)
	if _, ok, err := readQuit(path); ok || err != nil {
		t.Errorf("no file: ok %v, err %v; want neither", ok, err)
	}
	if err := os.WriteFile(path, make([]byte, quitLimit+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readQuit(path); err == nil {
		t.Error("a quit.json over the limit was read")
	}
	os.Remove(path)
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readQuit(path); err == nil {
		t.Error("a directory named quit.json was read")
	}
}

// FuzzParseQuit: quit.json is written by another program; nothing in it
// may panic the host, and what is accepted is a usable time.
func FuzzParseQuit(f *testing.F) {
	f.Add([]byte(`{"wallMs": 1790000000000}`))              // the contract's shape
	f.Add([]byte(`{"wallMs": 1.79e12}`))                    // a float serialiser
	f.Add([]byte(`{"wallMs": -1}`))                         // negative
	f.Add([]byte(`{"wallMs": 1e400}`))                      // beyond float64
	f.Add([]byte(`{"wallMs": 1790000000000, "wallMs": 2}`)) // a repeated key
	f.Add([]byte("\xff\xfe{"))                              // not UTF-8
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := parseQuit(data)
		if err == nil && (ms <= 0 || ms > maxWallMs) {
			t.Errorf("parseQuit(%q) accepted %d", data, ms)
		}
		if err != nil && !errors.Is(err, errQuitMalformed) {
			t.Errorf("parseQuit(%q): %v does not wrap errQuitMalformed", data, err)
		}
	})
}
