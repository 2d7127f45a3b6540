package hookjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/state"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		err        string // "" when it decodes
	}{
		{"minimal", `{"session_id":"s","hook_event_name":"Stop"}`, ""},
		{"BOM and space", "\xef\xbb\xbf  {\"session_id\":\"s\",\"hook_event_name\":\"X\"}\n", ""},
		{"unknown hook name", `{"session_id":"s","hook_event_name":"FutureHook","x":[1]}`, ""},
		{"wrong types elsewhere are absent", `{"session_id":"s","hook_event_name":"Stop","cwd":42,"agent_id":null}`, ""},
		{"empty hook name is a string", `{"session_id":"s","hook_event_name":""}`, ""},
		{"neither", `{"cwd":"/x"}`, "no string session_id nor hook_event_name"},
		{"no session", `{"hook_event_name":"Stop"}`, "no string session_id"},
		{"numeric session", `{"session_id":7,"hook_event_name":"Stop"}`, "no string session_id"},
		{"empty session", `{"session_id":"","hook_event_name":"Stop"}`, "session_id is empty"},
		{"no hook name", `{"session_id":"s"}`, "no string hook_event_name"},
		{"null hook name", `{"session_id":"s","hook_event_name":null}`, "no string hook_event_name"},
		{"array", `[{"session_id":"s","hook_event_name":"Stop"}]`, "want a JSON object"},
		{"null", `null`, "want a JSON object"},
		{"empty", ``, "want a JSON object"},
		{"truncated", `{"session_id":"s","hook_event_name":"St`, "want a JSON object (unexpected end of JSON input)"},
		{"trailing data", `{"session_id":"s","hook_event_name":"Stop"} {}`, "want a JSON object (invalid character '{' after top-level value)"},
		{"a key twice", `{"session_id":"s","hook_event_name":"Stop","session_id":"t"}`, `the key "session_id" is given twice in one object (at byte 43)`},
		{"a key twice, deeper", `{"session_id":"s","hook_event_name":"PermissionRequest","tool_input":{"command":"ls","command":"rm -rf ~"}}`,
			`the key "command" is given twice in one object (at byte 85)`},
		{"a key twice, escaped", `{"session_id":"s","hook_event_name":"Stop","\u0073ession_id":"t"}`, `the key "session_id" is given twice in one object (at byte 43)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Decode([]byte(tc.body))
			if tc.err == "" {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if p.SessionID != "s" {
					t.Errorf("session %q", p.SessionID)
				}
				return
			}
			if !errors.Is(err, ErrPayload) {
				t.Fatalf("error %v does not wrap ErrPayload", err)
			}
			if want := "not a hook payload: " + tc.err; err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
		})
	}
}

func TestFields(t *testing.T) {
	f, err := Object([]byte(`{"s":"x","n":1,"t":true,"f":false,"z":null,"o":{"a":"b"},"esc":"a\u0000b"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		got, want any
	}{
		{f.String("s"), "x"}, {f.String("n"), ""}, {f.String("missing"), ""}, {f.String("esc"), "a\x00b"},
		{f.Bool("t"), true}, {f.Bool("f"), false}, {f.Bool("s"), false},
		{f.Given("z"), false}, {f.Given("n"), true}, {f.Given("missing"), false},
		{f.Object("o").String("a"), "b"}, {f.Object("s") == nil, true},
	} {
		if tc.got != tc.want {
			t.Errorf("got %v, want %v", tc.got, tc.want)
		}
	}
}

func TestReason(t *testing.T) {
	for _, tc := range []struct{ input, want string }{
		{`{"command":"rm -rf build","description":"Remove the build directory"}`, "Remove the build directory"},
		{`{"command":"rm -rf build\nmkdir build"}`, "rm -rf build mkdir build"},
		{`{"description":"  ","command":"ls"}`, "ls"},
		{`{"file_path":"/src/a.go","content":"…"}`, "/src/a.go"},
		{`{"notebook_path":"/n.ipynb"}`, "/n.ipynb"},
		{`{"url":"https://example.com","prompt":"sum"}`, "https://example.com"},
		{`{"pattern":"TODO"}`, ""},
		{`{"command":42}`, ""},
		{`"just a string"`, ""},
		{``, ""},
	} {
		if got := Reason(json.RawMessage(tc.input)); got != tc.want {
			t.Errorf("Reason(%s) = %q, want %q", tc.input, got, tc.want)
		}
	}
	long := `{"command":"` + strings.Repeat("x", 500) + `"}`
	if got := Reason(json.RawMessage(long)); len(got) != MaxReason {
		t.Errorf("a long command gives %d bytes, want %d", len(got), MaxReason)
	}
}

func TestBatch(t *testing.T) {
	m := Mapping{
		Open: []state.Event{
			{Type: state.TypeSessionOpened, Session: "p"},
			{Type: state.TypeSessionOpened, Session: "p/a", Origin: state.OriginSubagent, Parent: "p"},
			{Type: state.TypeSessionOpened, Session: "p"}, // named twice: opened once
		},
		Events: []state.Event{{Type: state.TypeTurnStarted, Session: "p/a"}},
	}
	for _, tc := range []struct {
		name string
		held map[string]bool
		want []string
	}{
		{"nothing held", nil, []string{"p", "p/a", "p/a"}},
		{"parent held", map[string]bool{"p": true}, []string{"p/a", "p/a"}},
		{"both held", map[string]bool{"p": true, "p/a": true}, []string{"p/a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, ev := range m.Batch(func(id string) bool { return tc.held[id] }) {
				got = append(got, ev.Session)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("batch %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("batch %v, want %v", got, tc.want)
				}
			}
		})
	}
	if n := *TokensEvent("s", -5).Tokens; n != 0 {
		t.Errorf("negative tokens: %d", n)
	}
	if n := *TokensEvent("s", 1<<62).Tokens; n != state.MaxInteger {
		t.Errorf("huge tokens: %d", n)
	}
	if err := TokensEvent("s", 412_034).Validate(); err != nil {
		t.Error(err)
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want int64
		ok   bool
	}{
		{`10241`, 10241, true},
		{`0`, 0, true},
		{`9007199254740991`, state.MaxInteger, true},
		{`9007199254740992`, 0, false},
		{`99999999999999999999`, 0, false},
		{`-1`, 0, false},
		{`1.5e3`, 0, false},
		{`12.0`, 0, false},
		{`"123"`, 0, false},
		{`null`, 0, false},
		{`true`, 0, false},
		{``, 0, false},
	} {
		f := Fields{}
		if tc.raw != "" {
			f["n"] = json.RawMessage(tc.raw)
		}
		if got, ok := f.Count("n"); got != tc.want || ok != tc.ok {
			t.Errorf("Count(%s) = %d, %v; want %d, %v", tc.raw, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzDecode: any body either decodes to a payload with a session and an
// event, and no object in it gives a key twice, or is refused as
// ErrPayload; it never panics.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","hook_event_name":"Stop"}`))                              // a payload
	f.Add([]byte(`{"session_id":"s","hook_event_name":"Stop","session_id":"t"}`))             // a key twice
	f.Add([]byte(`{"session_id":"s","hook_event_name":"X","tool_input":{"a":1,"\u0061":2}}`)) // twice, escaped, deeper
	f.Add([]byte("\xef\xbb\xbf{\"session_id\":\"s\",\"hook_event_name\":\"X\"}"))             // a BOM
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := Decode(body)
		if err != nil {
			if !errors.Is(err, ErrPayload) {
				t.Fatalf("%v does not wrap ErrPayload", err)
			}
			return
		}
		if p.SessionID == "" {
			t.Fatal("a payload without a session")
		}
		if err := jsonx.Duplicate(bytes.TrimPrefix(body, bom), jsonx.Exact); err != nil {
			t.Fatalf("decoded with %v", err)
		}
	})
}
