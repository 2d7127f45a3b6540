package state

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/textrule"
)

// FuzzDecodeEvents: the events body is outside input. DecodeEvents never
// panics; what it accepts always validates, and always folds (or is
// refused by the fold with an error) and snapshots into a document that
// encodes and decodes.
func FuzzDecodeEvents(f *testing.F) {
	for _, seed := range []string{
		// A single event, the curl example.
		`{"v":1,"type":"session.opened","session":"s1","title":"Fix the hub","cwd":"/src/notch-web"}`,
		// NDJSON that drives one session through a whole turn.
		"{\"type\":\"session.opened\",\"session\":\"a\",\"at\":1}\n{\"type\":\"turn.started\",\"session\":\"a\",\"at\":2}\n" +
			"{\"type\":\"tool.started\",\"session\":\"a\",\"tool\":\"bash\",\"at\":3}\n{\"type\":\"tool.ended\",\"session\":\"a\",\"tool\":\"bash\",\"outcome\":\"error\",\"at\":4}\n" +
			"{\"type\":\"approval.requested\",\"session\":\"a\",\"tool\":\"bash\",\"reason\":\"rm\",\"at\":5}\n{\"type\":\"approval.resolved\",\"session\":\"a\",\"outcome\":\"allowed-once\",\"at\":6}\n" +
			"{\"type\":\"context.tokens\",\"session\":\"a\",\"tokens\":412034,\"at\":7}\n{\"type\":\"turn.ended\",\"session\":\"a\",\"outcome\":\"completed\",\"at\":8}\n" +
			"{\"type\":\"session.finished\",\"session\":\"a\",\"at\":9}",
		// A subagent, out-of-order at, CRLF and blank lines.
		"{\"type\":\"session.opened\",\"session\":\"p\",\"at\":10}\r\n\r\n{\"type\":\"session.opened\",\"session\":\"c\",\"origin\":\"subagent\",\"parent\":\"p\",\"at\":5}\r\n",
		// A pretty-printed single object.
		"{\n  \"type\": \"session.titled\",\n  \"session\": \"a\",\n  \"title\": \"x\"\n}",
		// Refusals: unknown field, unknown type, version, wrong outcome, an array, not JSON.
		`{"type":"turn.started","sesion":"a"}`,
		`{"type":"turn.paused","session":"a"}`,
		`{"v":2,"type":"turn.started","session":"a"}`,
		`{"type":"tool.ended","session":"a","tool":"x","outcome":"completed"}`,
		`[{"type":"turn.started","session":"a"}]`,
		"\xef\xbb\xbf\x00\xff",
		"",
		// Issue 19: bidi, U+061C and zero-width characters in every field.
		`{"type":"session.opened","session":"s","title":"A\u202egnp.exe","project":"p\u061c","cwd":"/x\u200b"}` + "\n" +
			`{"type":"approval.requested","session":"s","tool":"t\ufeff","reason":"r\u2066\t"}`,
		// Issue 31: a five-digit year, and a key given twice.
		`{"type":"turn.started","session":"a","at":253402300800000}`,
		`{"type":"turn.started","session":"a","session":"b"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := DecodeEvents(data)
		if err != nil {
			if evs != nil {
				t.Fatal("a refusal returned events")
			}
			var le *LineError
			if errors.As(err, &le) && le.Line < 1 {
				t.Fatalf("line %d", le.Line)
			}
			return
		}
		for _, ev := range evs {
			if err := ev.Validate(); err != nil {
				t.Fatalf("accepted an event that does not validate: %v", err)
			}
			if ev.At > MaxAt {
				t.Fatalf("accepted at %d, past the year 9999", ev.At)
			}
		}
		Stamp(evs, time.UnixMilli(t0))
		// As a batch (all or nothing), then one by one after opening every
		// session named, so that the fold's paths past the unknown-session
		// check are reached too.
		a := NewFold()
		if _, err := a.Apply(evs...); err != nil && a.Len() != 0 {
			t.Fatal("a failed batch left rows behind")
		}
		b := NewFold()
		for _, ev := range evs {
			b.Apply(Event{Type: TypeSessionOpened, Session: ev.Session, At: t0})
			b.Apply(ev)
		}
		for _, fold := range []*Fold{a, b} {
			doc := fold.Snapshot(input(0))
			data, err := Encode(doc)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Decode(data); err != nil {
				t.Fatalf("a snapshot does not decode: %v", err)
			}
			// The one text rule: nothing a row draws holds what
			// internal/textrule hides, whatever the events said.
			for _, s := range doc.Sessions {
				strs := []string{s.ID, s.Title, s.Project, s.Cwd, s.ParentSession}
				if s.Activity != nil {
					strs = append(strs, s.Activity.Label)
				}
				if s.Approval != nil {
					strs = append(strs, s.Approval.ToolName, s.Approval.Reason)
				}
				for _, str := range strs {
					if textrule.Has(str) {
						t.Fatalf("row %q holds %q", s.ID, str)
					}
				}
			}
		}
	})
}

// FuzzDecode: state.json as a follower reads it from another host. Decode
// never panics, and whatever it accepts re-encodes and decodes equal.
func FuzzDecode(f *testing.F) {
	full, _ := Encode(fullDoc(f))
	for _, seed := range []string{
		string(full),                              // every field, every pointer set
		`{"schema":4,"wallMs":1}`,                 // the minimum
		`{"schema":3,"wallMs":1,"sessions":[{}]}`, // schema 3, a bare row
		string(full[:len(full)/2]),                // truncated mid-write
		`{"schema":5,"wallMs":1}`,                 // a newer schema
		`{"schema":4,"wallMs":1,"context":{"budget":null,"hotAt":-0}}`,
		`{"SCHEMA":4,"wallms":1,"x":[1,{"y":null}]}`, // case-folded keys, unknown fields
		"\xef\xbb\xbf{\"schema\":4,\"wallMs\":1,\"sessions\":[{\"title\":\"\xff\"}]}",
		"null",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrSchema) {
				t.Fatalf("an error outside the sentinels: %v", err)
			}
			return
		}
		enc, err := Encode(d)
		if err != nil {
			t.Fatalf("a decoded document does not encode: %v", err)
		}
		d2, err := Decode(enc)
		if err != nil {
			t.Fatalf("a re-encoded document does not decode: %v\n%s", err, enc)
		}
		if !reflect.DeepEqual(d, d2) {
			t.Fatalf("round trip differs:\n%+v\n%+v", d, d2)
		}
	})
}

// FuzzReadMarks: manual.json is written by other programs (the window).
// Reading it never panics; merging a mark into anything that parses keeps
// every mark that was readable and adds the new one.
func FuzzReadMarks(f *testing.F) {
	for _, seed := range []string{
		`{"s1":{"state":"finished","at":1790000000000}}`,                                       // the shape this package writes
		`{"s1":{"state":"finished","at":1,"by":"window"},"odd":true}`,                          // unknown fields, an odd entry
		`{"fuzz-id":{"State":"x","AT":2,"keep":[1]}}`,                                          // case variants of the merged keys
		`{"s1":{"state":"finished","at":1.5},"s2":{"state":7},"s3":null}`,                      // entries that are not marks
		`{"s1": {"state": "fini`,                                                               // truncated
		`["s1"]`,                                                                               // an array with an element that is not a mark
		`{"sessionId":"s1","state":"finished"}`,                                                // the window's own object
		`[{"sessionId":"s1","state":"finished"},{"sessionId":"s2","state":"finished","at":3}]`, // an array of them
		`{"sessionId":"s1","state":"finished"} {"s2":{"state":"finished"}}`,                    // values one after another
		`7`, // not an object or array
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before, readErr := parseMarks(data)
		out, lossy, err := mergeMark(data, "fuzz-id", Mark{State: MarkFinished, At: 42})
		if err != nil {
			t.Fatalf("merge failed: %v", err)
		}
		if (lossy != nil) && readErr == nil {
			t.Fatalf("merge dropped something (%v) the reader read whole", lossy)
		}
		after, shape, _ := parseMarkFile(out)
		if shape != ShapeKeyed {
			t.Fatalf("a merged file is %v, not the keyed map\n%s", shape, out)
		}
		if after["fuzz-id"] != (Mark{MarkFinished, 42}) {
			t.Fatalf("the merged mark is %+v\n%s", after["fuzz-id"], out)
		}
		for id, m := range before {
			if id != "fuzz-id" && after[id] != m && (m.At <= 0 || m.At >= 42-MarkRetention.Milliseconds()) {
				t.Fatalf("mark %q was %+v, is %+v", id, m, after[id])
			}
		}
	})
}
