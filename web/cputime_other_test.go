//go:build !unix

package web

import "time"

// cpuTime is not measured here: the benchmarks report 0 CPU per delivery.
func cpuTime() time.Duration { return 0 }

// childCPUTime is not measured here.
func childCPUTime() time.Duration { return 0 }
