//go:build unix

package main

import (
	"bytes"
	"fmt"
	"strconv"
)

// markerKind is what tells a client that change seq reached it.
type markerKind int

const (
	// markNone recognises nothing: streams opening, before any change.
	markNone markerKind = iota
	// markTitle is marker(seq) in a session title, for changes driven by
	// events (and by the floor, whose frames carry the same text).
	markTitle
	// markHold is the board's data-hold-ms="holdValue(seq)", for changes
	// driven by settings POSTs: no setting holds free text.
	markHold
)

// marker is the unique, fixed-width text a change puts on the board.
func marker(seq int) string { return fmt.Sprintf("mk%06dz", seq) }

// holdBase is the hold time of change 0; change seq sets holdBase+seq ms.
// The setting clamps to 500 … 4000 and defaults to 1600, so changes 1 …
// 1000 are all distinct, unclamped and unlike the default (which reads as
// change 1100, past any run's last).
const holdBase = 500

// holdValue is the holdMs a settings-driven change seq sets.
func holdValue(seq int) int { return holdBase + seq }

var (
	titleMark = []byte("mk")
	holdMark  = []byte(`data-hold-ms="`)
)

// markerTail is how many bytes of a read a client keeps for the next one,
// so a marker split across two reads is still found: the longest marker
// less one byte is enough.
const markerTail = 32

// scanMarkers calls fn with the change number of every complete marker of
// kind in data, in order. An incomplete marker at the end is left for the
// next read (which starts with this one's last markerTail bytes).
func scanMarkers(data []byte, kind markerKind, fn func(seq int)) {
	switch kind {
	case markTitle:
		for off := 0; ; {
			k := bytes.Index(data[off:], titleMark)
			if k < 0 {
				return
			}
			k += off
			if k+9 > len(data) {
				return
			}
			if data[k+8] == 'z' {
				if seq, ok := digits(data[k+2 : k+8]); ok {
					fn(seq)
				}
			}
			off = k + 2
		}
	case markHold:
		for off := 0; ; {
			k := bytes.Index(data[off:], holdMark)
			if k < 0 {
				return
			}
			k += off + len(holdMark)
			end := bytes.IndexByte(data[k:], '"')
			if end < 0 {
				return
			}
			if v, ok := digits(data[k : k+end]); ok {
				fn(v - holdBase)
			}
			off = k + end
		}
	}
}

// digits parses a short run of ASCII digits.
func digits(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(b))
	return n, err == nil
}
