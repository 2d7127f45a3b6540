package otlp

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Limits bound what a Receiver takes. The zero value is DefaultLimits.
type Limits struct {
	// MaxBody is the largest body, once decompressed (MaxBody if 0).
	MaxBody int64
	// Requests a second, with a burst of twice that (Requests 0: 20).
	Requests float64
	// Bytes a second decoded, with a burst of MaxBody (0: 4 MiB).
	Bytes float64
}

// Receiver takes OTLP/HTTP exports (ServeHTTP), maps them (Map) and hands
// what each held on, one Batch an export. It answers as the OTLP/HTTP spec says: 200
// with the signal's Export…ServiceResponse in the request's encoding
// (partial_success where records were rejected), 400 for a body that is
// not the export, 413 for one over the limit, 415 for another media type,
// 429 with Retry-After past the rate. Create it with NewReceiver.
type Receiver struct {
	sink  func(Batch)
	max   int64
	reqs  *rate.Limiter
	bytes *rate.Limiter
	stats counters
}

type counters struct {
	exports, records, usage, errors, rejected, refused atomic.Int64
}

// Stats are a Receiver's counts since it started (doctor, /healthz, the log).
type Stats struct {
	Exports  int64 `json:"exports"`  // exports taken (200)
	Records  int64 `json:"records"`  // log records, data points and spans in them
	Usage    int64 `json:"usage"`    // Usage handed on
	Errors   int64 `json:"errors"`   // ModelErrors handed on
	Rejected int64 `json:"rejected"` // records rejected (partial_success)
	Refused  int64 `json:"refused"`  // requests refused (400, 413, 415, 429)
}

// NewReceiver returns a Receiver that hands each export's Batch to sink
// (nil: none) when it holds a Usage or a ModelError, within lim.
func NewReceiver(lim Limits, sink func(Batch)) *Receiver {
	if lim.MaxBody <= 0 {
		lim.MaxBody = MaxBody
	}
	if lim.Requests <= 0 {
		lim.Requests = 20
	}
	if lim.Bytes <= 0 {
		lim.Bytes = 4 << 20
	}
	return &Receiver{
		sink: sink, max: lim.MaxBody,
		reqs:  rate.NewLimiter(rate.Limit(lim.Requests), int(2*lim.Requests)+1),
		bytes: rate.NewLimiter(rate.Limit(lim.Bytes), int(lim.MaxBody)),
	}
}

// Stats returns the Receiver's counts.
func (rv *Receiver) Stats() Stats {
	s := &rv.stats
	return Stats{s.exports.Load(), s.records.Load(), s.usage.Load(), s.errors.Load(), s.rejected.Load(), s.refused.Load()}
}

// ServeHTTP takes one export: POST …/v1/logs, …/v1/metrics or
// …/v1/traces (the path's last two elements name the signal).
func (rv *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	enc, ok := ParseContentType(r.Header.Get("Content-Type"))
	if !ok {
		rv.fail(w, JSON, http.StatusUnsupportedMediaType, CodeInvalidArgument, "content-type must be application/x-protobuf or application/json")
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	i := strings.LastIndex(path, "/")
	j := strings.LastIndex(path[:max(i, 0)], "/")
	sig, ok := Signal(""), false
	if i > 0 && j >= 0 {
		sig, ok = ParseSignal(path[j+1:])
	}
	switch {
	case !ok:
		rv.fail(w, enc, http.StatusNotFound, CodeInvalidArgument, "no such OTLP signal: use /v1/logs, /v1/metrics or /v1/traces")
		return
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		rv.fail(w, enc, http.StatusMethodNotAllowed, CodeInvalidArgument, "POST an export")
		return
	case !rv.reqs.Allow():
		w.Header().Set("Retry-After", "1")
		rv.fail(w, enc, http.StatusTooManyRequests, CodeResourceExhausted, "too many exports: retry later")
		return
	}
	if r.ContentLength > rv.max {
		rv.fail(w, enc, http.StatusRequestEntityTooLarge, CodeInvalidArgument, "body larger than "+strconv.FormatInt(rv.max, 10)+" bytes")
		return
	}
	body, err := ReadBody(http.MaxBytesReader(w, r.Body, rv.max), r.Header.Get("Content-Encoding"), rv.max)
	switch {
	case errors.Is(err, ErrTooLarge):
		rv.fail(w, enc, http.StatusRequestEntityTooLarge, CodeInvalidArgument, "body larger than "+strconv.FormatInt(rv.max, 10)+" bytes")
		return
	case err != nil:
		rv.fail(w, enc, http.StatusBadRequest, CodeInvalidArgument, err.Error())
		return
	case !rv.bytes.AllowN(time.Now(), len(body)):
		w.Header().Set("Retry-After", "2")
		rv.fail(w, enc, http.StatusTooManyRequests, CodeResourceExhausted, "too many bytes exported: retry later")
		return
	}
	reply, err := rv.Export(sig, enc, body)
	if err != nil {
		rv.fail(w, enc, http.StatusBadRequest, CodeInvalidArgument, err.Error())
		return
	}
	w.Header().Set("Content-Type", enc.ContentType())
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(reply)
}

// Export decodes, maps and hands on one export body, and returns the
// success reply; an error is a body that is not sig's export (ErrBody).
func (rv *Receiver) Export(sig Signal, enc Encoding, body []byte) ([]byte, error) {
	req, err := Decode(sig, enc, body)
	if err != nil {
		return nil, err
	}
	b := Map(req)
	rv.stats.exports.Add(1)
	rv.stats.records.Add(b.Records)
	rv.stats.rejected.Add(b.Rejected)
	rv.stats.usage.Add(int64(len(b.Usage)))
	rv.stats.errors.Add(int64(len(b.Errors)))
	if rv.sink != nil && len(b.Usage)+len(b.Errors) > 0 {
		rv.sink(b)
	}
	return Reply(sig, enc, b.Rejected, b.Reason)
}

func (rv *Receiver) fail(w http.ResponseWriter, enc Encoding, status int, code int32, msg string) {
	rv.stats.refused.Add(1)
	w.Header().Set("Content-Type", enc.ContentType())
	w.WriteHeader(status)
	_, _ = w.Write(StatusBody(enc, code, msg))
}
