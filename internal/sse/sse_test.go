package sse

import (
	"reflect"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"a", []string{"a"}},
		{"a\nb", []string{"a", "b"}},
		{"a\rb", []string{"a", "b"}},
		{"a\r\nb", []string{"a", "b"}},
		{"a\n\rb", []string{"a", "", "b"}},
		{"a\r\rb", []string{"a", "", "b"}},
		{"a\n", []string{"a", ""}},
		{"\r", []string{"", ""}},
		{"a\u2028b\u0085c", []string{"a\u2028b\u0085c"}}, // not line ends to an event stream
	} {
		if got := Lines(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The parser follows the standard's own examples and corner cases.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream string
		want   []Event
	}{
		{"one event", "event: a\ndata: x\n\n", []Event{{Type: "a", Data: "x"}}},
		{"default type", "data: x\n\n", []Event{{Type: "message", Data: "x"}}},
		{"data lines joined", "data: a\ndata: b\n\n", []Event{{Type: "message", Data: "a\nb"}}},
		{"lone CR ends lines", "data: a\rdata: b\r\r", []Event{{Type: "message", Data: "a\nb"}}},
		{"CRLF ends lines", "data: a\r\n\r\n", []Event{{Type: "message", Data: "a"}}},
		{"CR then LF is one line end", "data: a\r\ndata: b\n\n", []Event{{Type: "message", Data: "a\nb"}}},
		{"comment", ": hi\ndata: a\n\n", []Event{{Type: "message", Data: "a"}}},
		{"no space after colon", "data:a\n\n", []Event{{Type: "message", Data: "a"}}},
		{"only one space dropped", "data:  a\n\n", []Event{{Type: "message", Data: " a"}}},
		{"field without colon", "data\n\n", []Event{{Type: "message", Data: ""}}},
		{"no data: nothing dispatched", "event: a\n\n", nil},
		{"blank lines alone", "\n\n\n", nil},
		{"unterminated last event dropped", "data: a\n\ndata: b\n", []Event{{Type: "message", Data: "a"}}},
		{"unknown fields ignored", "foo: bar\ndata: a\n\n", []Event{{Type: "message", Data: "a"}}},
		{"id and retry", "id: 7\nretry: 50\ndata: a\n\n", []Event{{Type: "message", Data: "a", ID: "7", Retry: 50}}},
		{"bad retry ignored", "retry: 5x\ndata: a\n\n", []Event{{Type: "message", Data: "a"}}},
		{"id with NUL ignored", "id: 1\x002\ndata: a\n\n", []Event{{Type: "message", Data: "a"}}},
		{"BOM dropped once", "\uFEFFdata: a\n\n", []Event{{Type: "message", Data: "a"}}},
		{"invalid UTF-8 replaced", "data: \xff\n\n", []Event{{Type: "message", Data: "\uFFFD"}}},
		{"event type reset after dispatch", "event: a\ndata: 1\n\ndata: 2\n\n", []Event{{Type: "a", Data: "1"}, {Type: "message", Data: "2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Parse([]byte(tc.stream)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q) =\n %#v\nwant\n %#v", tc.stream, got, tc.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		frame string
		ok    bool
	}{
		{"event: a\ndata: x\n\n", true},
		{"event: a\ndata: x\n\n\n", true},
		{"event: a\nid: 1\nretry: 5\ndata: x\n\n", true},
		{"event: a\ndata: x\rdata: y\n\n", false},
		{"event: a\ndata: x\n", false},
		{"event: a\ndata: x\n\ndata: y\n\n", false}, // two events
		{"event: a\nxyz\n\n", false},
		{"\n\n", false},
		{"event: a\nbogus: x\n\n", false},
	} {
		if err := Check([]byte(tc.frame)); (err == nil) != tc.ok {
			t.Errorf("Check(%q) = %v, want ok=%v", tc.frame, err, tc.ok)
		}
	}
}

// FuzzLines: whatever the content, the lines Lines returns hold no line
// end, and a frame built of them parses as exactly one event whose data is
// the content with its line ends normalised.
func FuzzLines(f *testing.F) {
	for _, s := range []string{
		"",
		"plain",
		"a\rb",     // the lone CR that once ended a line
		"a\r\rb",   // and CR CR, which ended the event
		"a\r\n\nb", // mixed
		"x\revent: datastar-patch-signals\rdata: signals {\"_x\":1}\r\r",
		"\xff\xfe", // invalid UTF-8
		"\uFEFFbom",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lines := Lines(s)
		var b strings.Builder
		b.WriteString("event: e\n")
		for _, l := range lines {
			if strings.ContainsAny(l, "\r\n") {
				t.Fatalf("line %q holds a line end", l)
			}
			b.WriteString("data: x " + l + "\n")
		}
		b.WriteString("\n")
		if err := Check([]byte(b.String())); err != nil {
			t.Fatal(err)
		}
		evs := Parse([]byte(b.String()))
		if len(evs) != 1 || evs[0].Type != "e" {
			t.Fatalf("%q parsed as %#v, want one event e", s, evs)
		}
		want := "x " + strings.Join(lines, "\nx ")
		want = strings.ToValidUTF8(want, "\uFFFD")
		if evs[0].Data != want {
			t.Fatalf("data %q, want %q", evs[0].Data, want)
		}
	})
}

// The frames' exact bytes: what the hub sends and the load tool's floor
// copies. A lone CR in a payload is a line of its own, never an event.
func TestFrames(t *testing.T) {
	if want := "event: datastar-patch-signals\ndata: signals {\"_hb\":true}\n\n\n"; string(Heartbeat) != want {
		t.Errorf("Heartbeat = %q, want %q", Heartbeat, want)
	}
	f := Elements([]byte("<p id=\"a\">x\ry\r\rz</p>"))
	want := "event: datastar-patch-elements\ndata: elements <p id=\"a\">x\ndata: elements y\ndata: elements \ndata: elements z</p>\n\n\n"
	if string(f) != want {
		t.Errorf("Elements = %q, want %q", f, want)
	}
	if ev := Parse(f); len(ev) != 1 || ev[0].Type != "datastar-patch-elements" {
		t.Errorf("Elements parses as %+v, want one patch-elements event", ev)
	}
}
