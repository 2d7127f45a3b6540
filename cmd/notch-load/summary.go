//go:build unix

package main

import (
	"math"
	"sort"
)

// stats are latency percentiles in milliseconds.
type stats struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// summarize sorts ms in place and returns its percentiles. A percentile is
// the sample at rank ⌊p·n⌋ (0-based), so p99 of fewer than 100 samples is
// the largest one: a short run never reports a tail better than it saw.
func summarize(ms []float64) stats {
	if len(ms) == 0 {
		return stats{}
	}
	sort.Float64s(ms)
	q := func(p float64) float64 { return ms[min(len(ms)-1, int(p*float64(len(ms))))] }
	return stats{N: len(ms), P50: q(0.50), P99: q(0.99), Max: ms[len(ms)-1]}
}

// medianOf is the median of v without reordering it; for an even count, the
// upper of the two middle values, so the median is always a measured run.
// NaN when v is empty.
func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// ratioSummary compares notch-web's runs with the floor's at one size.
type ratioSummary struct {
	// Ratio is the median of notch-web's values over the median of the
	// floor's: the figure the targets are stated in.
	Ratio float64 `json:"ratio"`
	// PairMin and PairMax bound the ratios of each run with the floor run
	// next to it (run i of each). Runs alternate, so a pair saw the same
	// machine; how far the pairs disagree says how far to trust Ratio.
	PairMin float64 `json:"pairMin"`
	PairMax float64 `json:"pairMax"`
	// Spread is half the pairs' range relative to Ratio (0.1 is ±10 %);
	// zero with one pair, where nothing can be said.
	Spread float64 `json:"spread"`
	Pairs  int     `json:"pairs"`
}

// compareRuns summarises notch-web's values nw against the floor's fl, run i
// of one paired with run i of the other. Pairs with a non-positive floor
// value are left out of the pair ratios.
func compareRuns(nw, fl []float64) ratioSummary {
	var r ratioSummary
	if m := medianOf(fl); m > 0 {
		r.Ratio = medianOf(nw) / m
	}
	r.PairMin, r.PairMax = math.Inf(1), math.Inf(-1)
	for i := 0; i < min(len(nw), len(fl)); i++ {
		if fl[i] <= 0 {
			continue
		}
		x := nw[i] / fl[i]
		r.PairMin, r.PairMax = math.Min(r.PairMin, x), math.Max(r.PairMax, x)
		r.Pairs++
	}
	if r.Pairs == 0 {
		r.PairMin, r.PairMax = 0, 0
		return r
	}
	if r.Pairs > 1 && r.Ratio > 0 {
		r.Spread = (r.PairMax - r.PairMin) / 2 / r.Ratio
	}
	return r
}
