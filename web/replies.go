package web

// The JSON replies, typed, like miniflux's response/json: every answer is
// {"ok": …} plus what that route adds.

// okReply is a write that needs to say nothing more.
type okReply struct {
	OK bool `json:"ok"`
}

// errReply is every refusal and failure: a public message (never an
// internal error's text) and, for an events body, the line at fault.
type errReply struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
	Line  int    `json:"line,omitempty"`
}

// eventsReply answers POST /agents-notch/events.
type eventsReply struct {
	OK       bool     `json:"ok"`
	Applied  int      `json:"applied"`
	Warnings []string `json:"warnings"`
}

var ok = okReply{OK: true}
