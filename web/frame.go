package web

import "github.com/notch-web/notch-web/internal/sse"

// elementsFrame and heartbeatFrame are the wire's frames (internal/sse: the
// one encoder, shared with the load tool's floor, so the two can never
// drift apart).
var (
	elementsFrame = sse.Elements
	// heartbeatFrame is the light event an idle stream carries. Every
	// event the client receives fires a datastar-fetch event, which the
	// page's liveness check watches.
	heartbeatFrame = sse.Heartbeat
)
