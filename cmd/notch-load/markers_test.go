//go:build unix

package main

import (
	"slices"
	"testing"
)

func TestScanMarkers(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind markerKind
		in   string
		want []int
	}{
		{"title", markTitle, `<span class="title">change mk000042z</span>`, []int{42}},
		{"title twice in a frame", markTitle, `<span>change mk000007z</span><span class="title">change mk000007z</span>`, []int{7, 7}},
		{"not a marker", markTitle, `mkdir mk12345z mk0000001 mk00000az`, nil},
		{"cut at the end", markTitle, `change mk00004`, nil},
		{"mk inside a marker's neighbour", markTitle, `mkmk000003z`, []int{3}},
		{"none", markNone, `change mk000042z data-hold-ms="501"`, nil},
		{"hold", markHold, `<div id="board" data-hold-ms="517" data-motion="auto">`, []int{17}},
		{"hold default reads past any run", markHold, `data-hold-ms="1600"`, []int{1100}},
		{"hold cut at the end", markHold, `data-hold-ms="51`, nil},
		{"hold not a number", markHold, `data-hold-ms="x" data-hold-ms="502"`, []int{2}},
		{"title is not hold", markHold, `change mk000042z`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			scanMarkers([]byte(tc.in), tc.kind, func(seq int) { got = append(got, seq) })
			if !slices.Equal(got, tc.want) {
				t.Errorf("scanMarkers(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

// TestMarkerTail: a reader keeps markerTail bytes of each read for the
// next, so every marker, wherever a read splits it, is found.
func TestMarkerTail(t *testing.T) {
	for _, tc := range []struct {
		kind   markerKind
		marker string
		seq    int
	}{
		{markTitle, "mk000042z", 42},
		{markHold, `data-hold-ms="1499"`, 999},
	} {
		if len(tc.marker) > markerTail+1 {
			t.Fatalf("%q is longer than the tail kept between reads", tc.marker)
		}
		stream := []byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" + tc.marker + "yyyy")
		for cut := 1; cut < len(stream); cut++ {
			var got []int
			first := stream[:cut]
			scanMarkers(first, tc.kind, func(s int) { got = append(got, s) })
			second := append(append([]byte(nil), first[max(0, len(first)-markerTail):]...), stream[cut:]...)
			scanMarkers(second, tc.kind, func(s int) { got = append(got, s) })
			if len(got) == 0 || got[0] != tc.seq {
				t.Errorf("%q cut at %d: found %v", tc.marker, cut, got)
			}
		}
	}
}

func TestHoldValue(t *testing.T) {
	// Every change a run can drive sets a distinct holdMs inside the
	// setting's clamp (500 … 4000) and below its default.
	if lo, hi := holdValue(1), holdValue(1000); lo < 500 || hi > 4000 || hi >= 1600 {
		t.Errorf("holdValue spans %d … %d", lo, hi)
	}
}
