package state

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDecodeEventsAccepts(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []Event
	}{
		{"one object", `{"type":"turn.started","session":"a","at":5}`,
			[]Event{{Type: TypeTurnStarted, Session: "a", At: 5}}},
		{"one pretty-printed object", "\n{\n  \"v\": 1,\n  \"type\": \"tool.started\",\n  \"session\": \"a\",\n  \"tool\": \"bash\"\n}\n",
			[]Event{{V: 1, Type: TypeToolStarted, Session: "a", Tool: "bash"}}},
		{"NDJSON with blank lines, CRLF and a BOM",
			"\xef\xbb\xbf{\"type\":\"session.opened\",\"session\":\"a\",\"cwd\":\"C:\\\\src\\\\x\",\"origin\":\"subagent\",\"parent\":\"p\"}\r\n\r\n   \n" +
				`{"type":"context.tokens","session":"a","tokens":0}` + "\n" +
				`{"type":"approval.resolved","session":"a","outcome":"allowed-once"}`,
			[]Event{{Type: TypeSessionOpened, Session: "a", Cwd: `C:\src\x`, Origin: OriginSubagent, Parent: "p"},
				{Type: TypeContextTokens, Session: "a", Tokens: ptr[int64](0)},
				{Type: TypeApprovalResolved, Session: "a", Outcome: OutcomeAllowedOnce}}},
		{"a tab is text, not a control", `{"type":"approval.requested","session":"a","tool":"pw\tsh","reason":"col1\tcol2"}`,
			[]Event{{Type: TypeApprovalRequested, Session: "a", Tool: "pw\tsh", Reason: "col1\tcol2"}}},
		{"null is not given", `{"type":"turn.started","session":"a","at":null,"tool":null}`,
			[]Event{{Type: TypeTurnStarted, Session: "a"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeEvents([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestDecodeEventsRefuses: every refusal, with the line it names and the
// sentinel behind it.
func TestDecodeEventsRefuses(t *testing.T) {
	ok := `{"type":"turn.started","session":"a"}`
	tests := []struct {
		name     string
		body     string
		line     int
		is       error
		contains string
	}{
		{"unknown field (a typo)", ok + "\n" + `{"type":"turn.started","sesion":"a"}`, 2, ErrInvalidEvent, `unknown field "sesion"`},
		{"unknown type", ok + "\n\n" + `{"type":"turn.paused","session":"a"}`, 3, ErrUnknownType, `"turn.paused"`},
		{"missing type", `{"session":"a"}`, 1, ErrInvalidEvent, "type is required"},
		{"missing session", `{"type":"turn.started"}`, 1, ErrInvalidEvent, "session is required"},
		{"version 3", `{"v":3,"type":"turn.started","session":"a"}`, 1, ErrVersion, "v 3"},
		{"version -1", `{"v":-1,"type":"turn.started","session":"a"}`, 1, ErrVersion, "v -1"},
		{"not JSON", ok + "\nhello", 2, ErrInvalidEvent, "want a JSON object"},
		{"broken JSON", ok + "\n" + `{"type":"turn.started",`, 2, ErrInvalidEvent, "truncated JSON"},
		{"an array", `[` + ok + `]`, 1, ErrInvalidEvent, "an array"},
		{"two objects on a line", ok + ok + "\n" + ok, 1, ErrInvalidEvent, "more than one JSON value"},
		{"a string field given a number", `{"type":"turn.started","session":7}`, 1, ErrInvalidEvent, "session is a JSON number, want string"},
		{"at given a string", `{"type":"turn.started","session":"a","at":"now"}`, 1, ErrInvalidEvent, "at is a JSON string, want int64"},
		{"negative at", `{"type":"turn.started","session":"a","at":-1}`, 1, ErrInvalidEvent, "at must be ≥ 0"},
		{"at beyond 2^53", `{"type":"turn.started","session":"a","at":9007199254740992}`, 1, ErrInvalidEvent, "at must be ≤"},
		{"at in the year 10000", `{"type":"turn.started","session":"a","at":253402300800000}`, 1, ErrInvalidEvent, "five-digit year"},
		{"session id too long", `{"type":"turn.started","session":"` + strings.Repeat("é", 101) + `"}`, 1, ErrInvalidEvent, "202 bytes (max 200)"},
		{"control character in session", `{"type":"turn.started","session":"a\u0007b"}`, 1, ErrInvalidEvent, "control characters"},
		{"control character in title", `{"type":"session.titled","session":"a","title":"x\ny"}`, 1, ErrInvalidEvent, "title must not contain control"},
		{"a lone CR in reason", `{"type":"approval.requested","session":"a","tool":"pwsh","reason":"x\revent: datastar-patch-signals"}`, 1, ErrInvalidEvent, "reason must not contain control"},
		{"a newline in reason", `{"type":"approval.requested","session":"a","tool":"pwsh","reason":"x\ny"}`, 1, ErrInvalidEvent, "reason must not contain control"},
		{"a CR in project", `{"type":"session.opened","session":"a","project":"p\r"}`, 1, ErrInvalidEvent, "project must not contain control"},
		{"an escape in cwd", `{"type":"session.opened","session":"a","cwd":"/x\u001b[31m"}`, 1, ErrInvalidEvent, "cwd must not contain control"},
		{"a C1 control in tool", `{"type":"tool.started","session":"a","tool":"b\u0085"}`, 1, ErrInvalidEvent, "tool must not contain control"},
		{"DEL in parent", `{"type":"session.opened","session":"a","parent":"p\u007f"}`, 1, ErrInvalidEvent, "parent must not contain control"},
		{"NUL in title", `{"type":"session.titled","session":"a","title":"x\u0000"}`, 1, ErrInvalidEvent, "title must not contain control"},
		{"tool.started without tool", `{"type":"tool.started","session":"a"}`, 1, ErrInvalidEvent, "tool.started needs tool"},
		{"tool.ended without outcome", `{"type":"tool.ended","session":"a","tool":"bash"}`, 1, ErrInvalidEvent, "needs outcome"},
		{"tool.ended bad outcome", `{"type":"tool.ended","session":"a","tool":"bash","outcome":"completed"}`, 1, ErrInvalidEvent, "not one of ok|error"},
		{"approval.resolved bad outcome", `{"type":"approval.resolved","session":"a","outcome":"allowed"}`, 1, ErrInvalidEvent, "allowed-once|rejected|cancelled"},
		{"turn.ended bad outcome", `{"type":"turn.ended","session":"a","outcome":"ok"}`, 1, ErrInvalidEvent, "completed|error"},
		{"context.tokens without tokens", `{"type":"context.tokens","session":"a"}`, 1, ErrInvalidEvent, "needs tokens"},
		{"negative tokens", `{"type":"context.tokens","session":"a","tokens":-3}`, 1, ErrInvalidEvent, "tokens must be ≥ 0"},
		{"fractional tokens", `{"type":"context.tokens","session":"a","tokens":1.5}`, 1, ErrInvalidEvent, "tokens is a JSON number 1.5, want int64"},
		{"session.titled without title", `{"type":"session.titled","session":"a"}`, 1, ErrInvalidEvent, "needs title"},
		{"a field the type does not take", `{"type":"turn.started","session":"a","tool":"bash"}`, 1, ErrInvalidEvent, "turn.started does not take tool"},
		{"origin other than subagent", `{"type":"session.opened","session":"a","origin":"human"}`, 1, ErrInvalidEvent, "origin must be one of subagent"},
		{"its own parent", `{"type":"session.opened","session":"a","parent":"a"}`, 1, ErrInvalidEvent, "its parent"},
		{"line too long", ok + "\n" + `{"type":"session.titled","session":"a","title":"` + strings.Repeat("x", MaxEventLine) + `"}`, 2, ErrTooLarge, "max 65536"},
		{"single object too long", `{"type":"session.titled","session":"a","title":"` + strings.Repeat("x", MaxEventLine) + `"}`, 1, ErrTooLarge, "max 65536"},
		{"too many events", strings.Repeat(ok+"\n", MaxEvents+1), MaxEvents + 1, ErrTooLarge, "more than 10000 events"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := DecodeEvents([]byte(tc.body))
			if evs != nil {
				t.Errorf("refusal returned %d events; want none", len(evs))
			}
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *LineError", err, err)
			}
			if le.Line != tc.line {
				t.Errorf("line = %d, want %d (%v)", le.Line, tc.line, err)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want errors.Is %v", err, tc.is)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, fmt.Sprintf("line %d: ", tc.line)) || !strings.Contains(msg, tc.contains) {
				t.Errorf("err = %q, want \"line %d: …%s…\"", msg, tc.line, tc.contains)
			}
			if len(err.Error()) > 400 {
				t.Errorf("error message is %d bytes; outside input must not blow up the log", len(err.Error()))
			}
		})
	}
}

func TestDecodeEventsEmpty(t *testing.T) {
	for _, body := range []string{"", "  \n\r\n\t", "\xef\xbb\xbf"} {
		if _, err := DecodeEvents([]byte(body)); !errors.Is(err, ErrNoEvents) {
			t.Errorf("DecodeEvents(%q) = %v, want ErrNoEvents", body, err)
		}
	}
}

// TestVocabularyComplete: every type accepts a minimal valid event, and
// only the fields its row in the table names.
func TestVocabularyComplete(t *testing.T) {
	full := Event{Title: "t", Project: "p", Cwd: "/c", Origin: OriginSubagent, Parent: "q", Tool: "bash",
		Reason: "r", Outcome: "x", Tokens: ptr[int64](1)}
	if len(vocabulary) != 11 {
		t.Fatalf("vocabulary has %d types, docs/events.md documents 11", len(vocabulary))
	}
	for typ, rule := range vocabulary {
		ev := Event{Type: typ, Session: "a"}
		if rule.needs&fTitle != 0 {
			ev.Title = "t"
		}
		if rule.needs&fTool != 0 {
			ev.Tool = "bash"
		}
		if rule.needs&fTokens != 0 {
			ev.Tokens = ptr[int64](1)
		}
		if rule.needs&fOutcome != 0 {
			ev.Outcome = rule.outcomes[0]
		}
		if err := ev.Validate(); err != nil {
			t.Errorf("minimal %s: %v", typ, err)
		}
		// Add each field the type does not take: refused by name.
		for i, name := range fieldNames {
			bit := field(1 << i)
			if rule.takes&bit != 0 {
				continue
			}
			bad := ev
			v, b := reflect.ValueOf(&bad).Elem(), reflect.ValueOf(full)
			for j := range v.NumField() {
				if tag, _, _ := strings.Cut(v.Type().Field(j).Tag.Get("json"), ","); tag == name {
					v.Field(j).Set(b.Field(j))
				}
			}
			if err := bad.Validate(); !errors.Is(err, ErrInvalidEvent) || !strings.Contains(err.Error(), "does not take "+name) {
				t.Errorf("%s with %s: %v", typ, name, err)
			}
		}
	}
}

func TestStamp(t *testing.T) {
	evs := []Event{{Type: TypeTurnStarted, Session: "a"}, {Type: TypeTurnStarted, Session: "a", At: 7}}
	Stamp(evs, time.UnixMilli(t0))
	if evs[0].At != t0 || evs[1].At != 7 {
		t.Errorf("Stamp: %d %d", evs[0].At, evs[1].At)
	}
}

// Every string field of an event is shown somewhere; each must refuse
// control characters (noctl) or be one of a fixed set of words. A new field
// without either fails here, not in a browser.
func TestEveryStringFieldRefusesControls(t *testing.T) {
	enums := map[string]bool{"Type": true, "Outcome": true} // checked against the vocabulary table
	typ := reflect.TypeFor[Event]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type.Kind() != reflect.String {
			continue
		}
		tag := f.Tag.Get("validate")
		if !strings.Contains(tag, "noctl") && !strings.Contains(tag, "oneof=") && !enums[f.Name] {
			t.Errorf("Event.%s is a string without noctl: control characters would reach the board", f.Name)
		}
	}
}

func TestValidSessionID(t *testing.T) {
	for _, c := range []struct {
		id   string
		want bool
	}{
		{"5d1f0c2e-7a43", true},
		{"ünïcode", true},
		{strings.Repeat("a", MaxSessionID), true},
		{"", false},
		{strings.Repeat("a", MaxSessionID+1), false},
		{"cr\rhere", false},
		{"lf\nhere", false},
		{"nul\x00", false},
		{"bad\xffutf8", false},
		// The one text rule (issue 19): an id is compared byte for byte,
		// so what textrule hides is refused, not cleaned.
		{"with\ttab", false},
		{"A\u202egnp", false},
		{"arabic\u061cmark", false},
		{"zero\u200bwidth", false},
	} {
		if got := ValidSessionID(c.id); got != c.want {
			t.Errorf("ValidSessionID(%q) = %v, want %v", c.id, got, c.want)
		}
	}
}
