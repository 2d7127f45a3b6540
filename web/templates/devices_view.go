package templates

import (
	"strconv"
	"time"
)

func itoa(n int) string { return strconv.Itoa(n) }

// clockMs is a host timestamp as a clock time in UTC ("10:42 UTC"), the
// words notch.js may replace with the viewer's own clock.
func clockMs(ms int64) string { return time.UnixMilli(ms).UTC().Format("15:04 UTC") }
