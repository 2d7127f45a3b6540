//go:build unix

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/internal/sse"
)

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
			events := sse.Parse(f)
			if len(events) != 1 || events[0].Type != "datastar-patch-elements" || strings.Count(events[0].Data, "\n") != 0 ||
				!strings.HasPrefix(events[0].Data, `elements <div id="floor"`) || !strings.HasSuffix(events[0].Data, "</div>") {
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
