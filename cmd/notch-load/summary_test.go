//go:build unix

package main

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(100 - i) // 100 … 1, unsorted
	}
	for _, tc := range []struct {
		name string
		in   []float64
		want stats
	}{
		{"empty", nil, stats{}},
		{"one", []float64{7}, stats{N: 1, P50: 7, P99: 7, Max: 7}},
		// Fewer than 100 samples: p99 is the largest, never better than seen.
		{"ten", []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, stats{N: 10, P50: 6, P99: 10, Max: 10}},
		{"hundred", hundred, stats{N: 100, P50: 51, P99: 100, Max: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := summarize(tc.in); got != tc.want {
				t.Errorf("summarize = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestMedianOf(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{31, 29, 36.1}, 31},
		{[]float64{4, 1, 3, 2}, 3}, // even count: the upper middle, a measured run
	} {
		in := append([]float64(nil), tc.in...)
		if got := medianOf(tc.in); got != tc.want {
			t.Errorf("medianOf(%v) = %v, want %v", tc.in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Fatalf("medianOf reordered its input: %v", tc.in)
			}
		}
	}
	if !math.IsNaN(medianOf(nil)) {
		t.Error("medianOf(nil) is not NaN")
	}
}

func TestCompareRuns(t *testing.T) {
	const eps = 1e-9
	for _, tc := range []struct {
		name                      string
		nw, fl                    []float64
		ratio, pmin, pmax, spread float64
		pairs                     int
	}{
		// Medians 30 and 20; pairs 1.5, 1.2, 1.8 (±20 % of 1.5).
		{"three", []float64{30, 24, 36}, []float64{20, 20, 20}, 1.5, 1.2, 1.8, 0.2, 3},
		// The ratio is of the medians, not the median of the pair ratios.
		{"medians", []float64{10, 40, 20}, []float64{10, 20, 40}, 1, 0.5, 2, 0.75, 3},
		{"one pair", []float64{30}, []float64{20}, 1.5, 1.5, 1.5, 0, 1},
		{"no floor", []float64{30}, nil, 0, 0, 0, 0, 0},
		{"zero floor run skipped", []float64{30, 30}, []float64{0, 15}, 2, 2, 2, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := compareRuns(tc.nw, tc.fl)
			if math.Abs(got.Ratio-tc.ratio) > eps || math.Abs(got.PairMin-tc.pmin) > eps ||
				math.Abs(got.PairMax-tc.pmax) > eps || math.Abs(got.Spread-tc.spread) > eps || got.Pairs != tc.pairs {
				t.Errorf("compareRuns = %+v, want ratio %v pairs %v–%v spread %v (%d pairs)", got, tc.ratio, tc.pmin, tc.pmax, tc.spread, tc.pairs)
			}
		})
	}
}
