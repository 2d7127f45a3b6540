// Package fdlimit sizes what notch-web admits by what the process may open:
// every open stream holds a file descriptor, and a server that runs out of
// them stops answering everything else too (its health check, the settings
// writes). StreamCap leaves headroom below the limit for those.
package fdlimit

// Bounds of StreamCap.
const (
	minStreams = 16
	// MaxStreams caps the streams whatever the limit: about 28 KiB of
	// memory each, so 50,000 streams are about 1.4 GiB.
	MaxStreams = 50_000
	// headroom is kept below the limit for listeners, files, the health
	// check and writes: at least this many, and at least an eighth.
	headroom = 128
)

// StreamCap is how many streams to admit with a descriptor limit of limit
// (0: unknown, as on Windows, where sockets are not bounded this way).
func StreamCap(limit uint64) int {
	if limit == 0 {
		return MaxStreams
	}
	keep := max(headroom, limit/8)
	if limit <= keep+minStreams {
		return minStreams
	}
	return int(min(limit-keep, MaxStreams))
}

// Streams is StreamCap of this process's current limit on open files.
func Streams() int { return StreamCap(openFiles()) }
