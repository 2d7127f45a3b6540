//go:build unix

package main

import (
	"bytes"
	"strings"
	"testing"
)

// sseEvent is one dispatched Server-Sent Event.
type sseEvent struct {
	typ  string
	data []string
}

// parseSSE parses a stream the way an EventSource does: fields up to a
// blank line, which dispatches the event if it has data.
func parseSSE(t *testing.T, stream []byte) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	lines := strings.Split(string(stream), "\n")
	if lines[len(lines)-1] != "" {
		t.Fatalf("stream does not end with a newline: %q", stream)
	}
	for _, line := range lines[:len(lines)-1] {
		if line == "" {
			if cur.data != nil {
				out = append(out, cur)
			}
			cur = sseEvent{}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			cur.typ = value
		case "data":
			cur.data = append(cur.data, value)
		default:
			t.Fatalf("unexpected field %q in %q", field, line)
		}
	}
	if cur.data != nil {
		t.Fatalf("the last event is not terminated by a blank line: %q", stream)
	}
	return out
}

func TestFloorFrame(t *testing.T) {
	// The smallest frame is the event with no padding; anything smaller is
	// refused rather than sent at the wrong size.
	smallest := 0
	for size := 1; size < 200 && smallest == 0; size++ {
		if _, err := floorFrame(1, size); err == nil {
			smallest = size
		}
	}
	if smallest == 0 || smallest > 120 {
		t.Fatalf("the smallest floor frame is %d bytes; a change frame of notch-web's is ~500", smallest)
	}
	// 784 and 13,1xx are notch-web's change and page sizes.
	for _, size := range []int{smallest, smallest + 1, 566, 784, 13117, 100000} {
		for _, seq := range []int{0, 1, 42, 1000} {
			f, err := floorFrame(seq, size)
			if err != nil {
				t.Fatalf("floorFrame(%d, %d): %v", seq, size, err)
			}
			if len(f) != size {
				t.Errorf("floorFrame(%d, %d) is %d bytes", seq, size, len(f))
			}
			events := parseSSE(t, f)
			if len(events) != 1 || events[0].typ != "datastar-patch-elements" || len(events[0].data) != 1 ||
				!strings.HasPrefix(events[0].data[0], `elements <div id="floor"`) || !strings.HasSuffix(events[0].data[0], "</div>") {
				t.Errorf("floorFrame(%d, %d) is not one patch-elements event of one element: %+v", seq, size, events)
			}
			// The clients' own scan finds the change, and nothing else.
			var found []int
			scanMarkers(f, markTitle, func(s int) { found = append(found, s) })
			if len(found) != 1 || found[0] != seq {
				t.Errorf("floorFrame(%d, %d): the clients read changes %v", seq, size, found)
			}
			if !bytes.HasPrefix(f, patchEvent) {
				t.Errorf("floorFrame(%d, %d) is not counted as a patch: %q", seq, size, f[:40])
			}
		}
	}
}

func TestHeartbeatFrame(t *testing.T) {
	hb, err := heartbeatFrame()
	if err != nil {
		t.Fatal(err)
	}
	// notch-web's hub heartbeat, as its streams carry it.
	const want = "event: datastar-patch-signals\ndata: signals {\"_hb\":true}\n\n\n"
	if string(hb) != want {
		t.Errorf("heartbeat = %q, want notch-web's %q", hb, want)
	}
	if ev := parseSSE(t, hb); len(ev) != 1 || ev[0].typ != "datastar-patch-signals" {
		t.Errorf("heartbeat parses as %+v", ev)
	}
}
