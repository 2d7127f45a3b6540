package standin

import (
	"net/http"
	"strconv"
	"time"
)

// The scripted failures of a model call, each answered the way its
// provider does (status, headers, body), so an agent tells why its turn
// stopped as it would against the real API (docs/agents.md, "Why it
// stopped"):
const (
	// Limit429 is a usage limit: HTTP 429 with the reset (Server.LimitReset)
	// in the headers (retry-after, Anthropic's unified reset, OpenAI's
	// x-ratelimit-reset-requests) and in the body (resets_at, Codex's
	// usage_limit_reached with resets_in_seconds; Gemini's RetryInfo).
	Limit429 Scenario = "limit429"
	// Auth401 is a bad key: HTTP 401, each API's authentication error.
	Auth401 Scenario = "auth401"
	// Overloaded is the model overloaded: HTTP 529 overloaded_error
	// (Anthropic), 503 elsewhere (UNAVAILABLE for Gemini).
	Overloaded Scenario = "overloaded"
	// TooLong is the context window exceeded: HTTP 400 with each API's
	// words for it ("prompt is too long", context_length_exceeded).
	TooLong Scenario = "toolong"
)

// failure is one scripted failure as an API answers it.
type failure struct {
	status  int
	headers map[string]string
	body    map[string]any
}

// failures reports whether sc is a scripted failure.
func failures(sc Scenario) bool {
	switch sc {
	case Limit429, Auth401, Overloaded, TooLong:
		return true
	}
	return false
}

// failureFor is sc's failure as api ("anthropic", "openai", "chat",
// "gemini") answers it, with the limit resetting at reset.
func failureFor(sc Scenario, api string, reset time.Time) failure {
	secs := max(1, int64(time.Until(reset).Seconds()))
	epoch := reset.Unix()
	msg := map[Scenario]string{
		Limit429:   "stand-in: usage limit reached (scenario:limit429)",
		Auth401:    "stand-in: invalid x-api-key (scenario:auth401)",
		Overloaded: "stand-in: Overloaded (scenario:overloaded)",
		TooLong:    "stand-in: prompt is too long: 250000 tokens > 200000 maximum (scenario:toolong)",
	}[sc]
	// x-should-retry: the Anthropic and OpenAI SDKs' word not to retry,
	// so an agent tells the failure now rather than after its backoff.
	f := failure{headers: map[string]string{"x-should-retry": "false"}}
	switch sc {
	case Limit429:
		f.status = http.StatusTooManyRequests
		f.headers["retry-after"] = strconv.FormatInt(secs, 10)
	case Auth401:
		f.status = http.StatusUnauthorized
	case Overloaded:
		f.status = http.StatusServiceUnavailable
	case TooLong:
		f.status = http.StatusBadRequest
	}
	switch api {
	case "anthropic":
		kind := map[Scenario]string{Limit429: "rate_limit_error", Auth401: "authentication_error", Overloaded: "overloaded_error", TooLong: "invalid_request_error"}[sc]
		if sc == Overloaded {
			f.status = 529
		}
		if sc == Limit429 {
			f.headers["anthropic-ratelimit-unified-status"] = "rejected"
			f.headers["anthropic-ratelimit-unified-reset"] = strconv.FormatInt(epoch, 10)
		}
		e := map[string]any{"type": kind, "message": msg}
		if sc == Limit429 {
			e["resets_at"] = epoch
		}
		f.body = map[string]any{"type": "error", "error": e}
	case "openai", "chat":
		e := map[string]any{"message": msg, "param": nil}
		switch sc {
		case Limit429:
			e["type"], e["code"] = "usage_limit_reached", "rate_limit_exceeded"
			e["resets_at"], e["resets_in_seconds"] = epoch, secs
			f.headers["x-ratelimit-reset-requests"] = strconv.FormatInt(secs, 10) + "s"
		case Auth401:
			e["type"], e["code"] = "invalid_request_error", "invalid_api_key"
		case Overloaded:
			e["type"], e["code"] = "server_error", "server_overloaded"
		case TooLong:
			e["type"], e["code"] = "invalid_request_error", "context_length_exceeded"
		}
		f.body = map[string]any{"error": e}
	case "gemini":
		status := map[Scenario]string{Limit429: "RESOURCE_EXHAUSTED", Auth401: "UNAUTHENTICATED", Overloaded: "UNAVAILABLE", TooLong: "INVALID_ARGUMENT"}[sc]
		e := map[string]any{"code": f.status, "message": msg, "status": status}
		if sc == Limit429 {
			e["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": strconv.FormatInt(secs, 10) + "s"}}
		}
		f.body = map[string]any{"error": e}
	}
	return f
}

// fail answers a request with sc's failure, recording it.
func (s *Server) fail(w http.ResponseWriter, rec Request, sc Scenario, api string) {
	f := failureFor(sc, api, s.LimitReset)
	rec.Status = f.status
	s.record(rec)
	for k, v := range f.headers {
		w.Header().Set(k, v)
	}
	writeJSON(w, f.status, f.body)
}
