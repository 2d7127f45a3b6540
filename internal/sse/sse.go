// Package sse holds notch-web's rule for the event-stream wire format and
// the means to prove it: Lines splits content at every line end an
// event-stream parser honours, Check verifies that a frame is exactly one
// event, and Parse is a parser written to the WHATWG HTML standard's
// "event stream interpretation", which the tests and the fuzz targets put
// every frame through.
//
// The rule: content never ends a line or an event. The WHATWG parser (and
// Datastar's, which follows it) ends a line at CRLF, at LF and at a lone CR.
// A payload split only at LF lets a lone CR inside a session title end the
// current data line, and a CR CR end the event, so the rest of the title
// becomes an event of the sender's choosing. Every data line therefore goes
// through Lines, and every frame through Check before it is sent.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Lines splits s into lines at CRLF, LF and a lone CR: the three line ends
// an event-stream parser honours. Joining the result with "\n" gives s with
// its line ends normalised to LF, which is what an HTML parser does to its
// input anyway, so for markup nothing is lost. The empty string is one
// empty line.
func Lines(s string) []string {
	out := make([]string, 0, 1+strings.Count(s, "\n"))
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
}

// ErrFrame is the sentinel of Check's refusals.
var ErrFrame = errors.New("malformed event-stream frame")

// Check verifies that frame is exactly one event as notch-web writes it:
// field lines ("event", "data", "id" or "retry", each "name: value"), each
// ended by LF, no CR anywhere, and the event ended by one blank line (a
// second, as datastar-go writes, is allowed: a blank line with no data
// dispatches nothing). A frame that passes cannot carry a second event,
// whatever its content.
func Check(frame []byte) error {
	if bytes.IndexByte(frame, '\r') >= 0 {
		return fmt.Errorf("%w: a CR would end a line early", ErrFrame)
	}
	body, ok := bytes.CutSuffix(frame, []byte("\n\n"))
	if !ok {
		return fmt.Errorf("%w: does not end with a blank line", ErrFrame)
	}
	body = bytes.TrimSuffix(body, []byte("\n"))
	if len(body) == 0 {
		return fmt.Errorf("%w: no fields", ErrFrame)
	}
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		name, _, found := bytes.Cut(line, []byte(": "))
		if !found {
			return fmt.Errorf("%w: line %q is not a field", ErrFrame, short(line))
		}
		switch string(name) {
		case "event", "data", "id", "retry":
		default:
			return fmt.Errorf("%w: unexpected field %q", ErrFrame, short(name))
		}
	}
	return nil
}

func short(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// Event is one dispatched event, as a browser's EventSource (or Datastar's
// parser) would see it.
type Event struct {
	Type  string // "message" when the stream named none
	Data  string // the data lines joined by LF
	ID    string // the last event id in force when it was dispatched
	Retry int    // the reconnection time in force, ms (0: never set)
}

// Parse interprets a whole event stream as the WHATWG standard says
// (html.spec.whatwg.org, "Interpreting an event stream"): decoded as UTF-8
// with replacement, one leading BOM dropped, lines ended by CRLF, LF or a
// lone CR, comments skipped, a blank line dispatching the event when its
// data buffer is not empty. A final line with no line end is not processed,
// as a stream that stopped mid-line would leave it.
func Parse(stream []byte) []Event {
	s := strings.ToValidUTF8(string(stream), string(utf8.RuneError))
	s = strings.TrimPrefix(s, "\uFEFF")
	var (
		events            []Event
		data, typ, lastID strings.Builder
		retry             int
	)
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			break // an unterminated last line is discarded
		}
		line := s[:i]
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]

		if line == "" {
			// A data line, even an empty one, leaves at least "\n" in the
			// buffer: only an event with no data line at all is dropped.
			if data.Len() > 0 {
				d := strings.TrimSuffix(data.String(), "\n")
				t := typ.String()
				if t == "" {
					t = "message"
				}
				events = append(events, Event{Type: t, Data: d, ID: lastID.String(), Retry: retry})
			}
			data.Reset()
			typ.Reset()
			continue
		}
		if line[0] == ':' {
			continue // a comment
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "event":
			typ.Reset()
			typ.WriteString(value)
		case "data":
			data.WriteString(value)
			data.WriteByte('\n')
		case "id":
			if !strings.ContainsRune(value, 0) {
				lastID.Reset()
				lastID.WriteString(value)
			}
		case "retry":
			if n, ok := digits(value); ok {
				retry = n
			}
		}
	}
	return events
}

// digits parses a retry value: ASCII digits only, else ignored.
func digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		if n < 1<<40 {
			n = n*10 + int(s[i]-'0')
		}
	}
	return n, true
}
