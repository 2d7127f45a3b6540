package state

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fullDoc is a document that uses every field, including every pointer.
func fullDoc(t testing.TB) Document {
	f := NewFold()
	mustApply(t, f, openedIn(0, "p", `C:\src\p`), bare(1, TypeTurnStarted, "p"), toolStart(2, "p", "bash"),
		toolEnd(3, "p", "bash", OutcomeError), askFor(4, "p", "bash", `rm -rf "x" <&>`), resolve(5, "p", OutcomeAllowedOnce),
		tokens(6, "p", 412_034), subagent(7, "c", "p"), turnEnd(8, "c", OutcomeCompleted), titled(9, "p", "Ünïcødé ✓"))
	in := input(10)
	in.Retire = RetireTimer
	in.FinishedURL, in.OpenURL = ptr("http://127.0.0.1:1/f"), ptr("http://127.0.0.1:1/o")
	in.Context = Context{Budget: ptr[int64](1_000_000), HotAt: 0.55}
	return f.Snapshot(in)
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for name, doc := range map[string]Document{"full": fullDoc(t), "empty": NewFold().Snapshot(input(0)), "zero": {Schema: Schema}} {
		t.Run(name, func(t *testing.T) {
			data, err := Encode(doc)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(data, []byte("}\n")) || bytes.Count(data, []byte("\n")) != 1 {
				t.Errorf("want compact JSON and one trailing newline: %q", data)
			}
			if bytes.Contains(data, []byte(`"sessions":null`)) {
				t.Error("sessions encoded as null; the contract wants []")
			}
			back, err := Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Sessions == nil {
				doc.Sessions = []Session{}
			}
			if !reflect.DeepEqual(back, doc) {
				t.Errorf("round trip differs:\n got %+v\nwant %+v", back, doc)
			}
		})
	}
}

func TestDecodeSchema3(t *testing.T) {
	d, err := ReadFile(filepath.Join("testdata", "schema3.json"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Schema != 3 || d.Retire != RetireTimer || d.OpenURL != nil || *d.FinishedURL == "" || *d.Context.Budget != 1_000_000 {
		t.Errorf("header: %+v", d)
	}
	if len(d.Sessions) != 1 {
		t.Fatalf("sessions: %d", len(d.Sessions))
	}
	s := d.Sessions[0]
	// The schema-4 fields a schema-3 writer never sent read as "not known".
	if s.ErrorStreak != 0 || s.ApprovedAt != nil {
		t.Errorf("schema-4 fields: errorStreak %d approvedAt %v", s.ErrorStreak, s.ApprovedAt)
	}
	if s.Approval == nil || s.Approval.ToolName != "pwsh" || s.Activity.Label != "roblox_verify" || s.ContextTokens != 412_034 || s.Cwd != `C:\Users\me\Projects\blindKnifeArgon` {
		t.Errorf("row: %+v", s)
	}
	if d.Settings.GhostOpacity != 0.18 || d.Settings.HoldMs != 1600 {
		t.Errorf("settings: %+v", d.Settings)
	}
}

func TestDecodeRefuses(t *testing.T) {
	good, err := Encode(fullDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		data     string
		is       error
		contains string
	}{
		{"empty", "", ErrMalformed, "empty"},
		{"whitespace", " \n\t", ErrMalformed, "empty"},
		{"not JSON", "hello", ErrMalformed, "not a JSON object"},
		{"an array", "[]", ErrMalformed, "not a JSON object"},
		{"null", "null", ErrMalformed, "not a JSON object"},
		{"truncated", string(good[:len(good)/2]), ErrMalformed, "truncated"},
		{"truncated after the last brace", strings.TrimSuffix(string(good), "}\n"), ErrMalformed, "truncated"},
		{"garbage after the document", string(good) + "{}", ErrMalformed, "not valid JSON"},
		{"schema 5", `{"schema":5,"wallMs":1}`, ErrSchema, "schema 5"},
		{"schema 2", `{"schema":2,"wallMs":1}`, ErrSchema, "schema 2"},
		{"schema missing", `{"wallMs":1}`, ErrMalformed, "no schema"},
		{"schema null", `{"schema":null,"wallMs":1}`, ErrMalformed, "no schema"},
		{"schema a string", `{"schema":"4","wallMs":1}`, ErrMalformed, "schema is a JSON string"},
		{"wallMs missing", `{"schema":4}`, ErrMalformed, "no wallMs"},
		{"a row of the wrong shape", `{"schema":4,"wallMs":1,"sessions":[{"steps":"7"}]}`, ErrMalformed, "sessions.steps is a JSON string"},
		{"sessions not a list", `{"schema":4,"wallMs":1,"sessions":{}}`, ErrMalformed, "sessions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.data))
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("Decode = %v, want %v mentioning %q", err, tc.is, tc.contains)
			}
		})
	}
}

func TestDecodeTolerates(t *testing.T) {
	for name, data := range map[string]string{
		"the minimum":              `{"schema":4,"wallMs":1}`,
		"unknown fields":           `{"schema":4,"wallMs":1,"future":{"x":1},"sessions":[{"id":"a","mood":"calm"}]}`,
		"a BOM and CRLF":           "\xef\xbb\xbf{\"schema\":4,\r\n\"wallMs\":1}\r\n",
		"another plugin's writer":  `{"schema":4,"plugin":"someone/else","wallMs":1}`,
		"sessions null is no rows": `{"schema":4,"wallMs":1,"sessions":null}`,
	} {
		d, err := Decode([]byte(data))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if d.Sessions == nil {
			t.Errorf("%s: Sessions is nil", name)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, bytes.Repeat([]byte(" "), MaxStateFile+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized file: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema":4`), 0o644)
	if _, err := ReadFile(bad); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), bad) {
		t.Errorf("a bad file's error should name it: %v", err)
	}
}
