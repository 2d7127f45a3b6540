//go:build unix

package main

import "testing"

// TestStatsOfParity: the latency run's two paths are told apart by the
// parity of their changes, from one tracker.
func TestStatsOfParity(t *testing.T) {
	tr := newTracker(markTitle, 1, 4)
	for seq, lat := range map[int]int64{1: 1, 2: 10, 3: 3, 4: 20} {
		tr.sentAt[seq].Store(1_000_000_000)
		tr.arrived[seq][0].Store(1_000_000_000 + lat*1e6)
	}
	odd, missed := tr.statsOf(1)
	if odd.N != 2 || odd.Max != 3 || missed != 0 {
		t.Errorf("odd changes: %+v, %d missed", odd, missed)
	}
	even, _ := tr.statsOf(0)
	if even.N != 2 || even.P50 != 20 || even.Max != 20 {
		t.Errorf("even changes: %+v", even)
	}
}
