package otlp

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	collogs "go.opentelemetry.io/proto/slim/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/slim/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/slim/otlp/collector/trace/v1"
)

// Signal is what an export carries, by its path (/v1/logs …).
type Signal string

// The signals OTLP/HTTP defines.
const (
	Logs    Signal = "logs"
	Metrics Signal = "metrics"
	Traces  Signal = "traces"
)

// ParseSignal is the signal of an OTLP/HTTP path's last two elements
// ("v1/logs"); ok is false for any other.
func ParseSignal(tail string) (Signal, bool) {
	switch tail {
	case "v1/logs":
		return Logs, true
	case "v1/metrics":
		return Metrics, true
	case "v1/traces":
		return Traces, true
	}
	return "", false
}

// Encoding is an export's body encoding (OTLP/HTTP's two).
type Encoding int

// Protobuf (application/x-protobuf) and JSON (application/json).
const (
	Protobuf Encoding = iota
	JSON
)

// ContentType is the media type of e, for the reply.
func (e Encoding) ContentType() string {
	if e == JSON {
		return "application/json"
	}
	return "application/x-protobuf"
}

// ParseContentType is the encoding a Content-Type names; ok is false for
// any media type but OTLP/HTTP's two.
func ParseContentType(contentType string) (Encoding, bool) {
	mt, _, err := mime.ParseMediaType(contentType)
	switch {
	case err != nil:
		return 0, false
	case mt == "application/x-protobuf":
		return Protobuf, true
	case mt == "application/json":
		return JSON, true
	}
	return 0, false
}

// MaxBody bounds an export's body after decompression: Codex 0.169 sends
// about 1 MB of spans in JSON for one plain turn (testdata/recorded), and
// the SDKs' batches (512 records) of ordinary records stay well under.
const MaxBody = 8 << 20

// recursionLimit bounds how deep a body may nest: OTLP's own messages are
// six deep, an attribute's value (arrays and maps of values) a few more.
const recursionLimit = 64

var (
	// ErrTooLarge is a body over MaxBody, compressed or not (413).
	ErrTooLarge = errors.New("body too large")
	// ErrBody is a body that is not the signal's export request (400).
	ErrBody = errors.New("not an OTLP export request")
)

// ReadBody reads an export's body from r, as Content-Encoding says
// ("" or "identity", or "gzip"), at most limit bytes once decompressed.
func ReadBody(r io.Reader, contentEncoding string, limit int64) ([]byte, error) {
	switch contentEncoding {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrBody, err)
		}
		defer zr.Close()
		r = zr
	default:
		return nil, fmt.Errorf("%w: content-encoding %q is not gzip", ErrBody, contentEncoding)
	}
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	switch {
	case n > limit:
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	case err != nil:
		// The caller's http.MaxBytesReader bounds the body as sent.
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return nil, fmt.Errorf("%w: %v", ErrTooLarge, err)
		}
		return nil, fmt.Errorf("%w: reading: %v", ErrBody, err)
	}
	return buf.Bytes(), nil
}

// Request is one decoded export request: exactly one of its fields is set.
type Request struct {
	Logs    *collogs.ExportLogsServiceRequest
	Metrics *colmetrics.ExportMetricsServiceRequest
	Traces  *coltrace.ExportTraceServiceRequest
}

// Decode reads body as sig's export request in enc. JSON is read by
// protojson, which takes OTLP/JSON's lowerCamelCase names (and the proto
// names), 64-bit integers as strings or numbers, enums as integers, and
// ignores unknown fields as OTLP/JSON requires. It reads trace and span
// ids as base64, not OTLP/JSON's hex: a hex id of 32 or 16 digits is valid
// base64 and decodes without error to other bytes. The board uses no id,
// so that difference is harmless here (TestDecodeHexIDs).
func Decode(sig Signal, enc Encoding, body []byte) (Request, error) {
	var req Request
	var m proto.Message
	switch sig {
	case Logs:
		req.Logs = &collogs.ExportLogsServiceRequest{}
		m = req.Logs
	case Metrics:
		req.Metrics = &colmetrics.ExportMetricsServiceRequest{}
		m = req.Metrics
	case Traces:
		req.Traces = &coltrace.ExportTraceServiceRequest{}
		m = req.Traces
	default:
		return req, fmt.Errorf("%w: no signal %q", ErrBody, sig)
	}
	var err error
	if enc == JSON {
		err = protojson.UnmarshalOptions{DiscardUnknown: true, RecursionLimit: recursionLimit}.Unmarshal(body, m)
	} else {
		err = proto.UnmarshalOptions{RecursionLimit: recursionLimit}.Unmarshal(body, m)
	}
	if err != nil {
		return Request{}, fmt.Errorf("%w: %s: %v", ErrBody, sig, err)
	}
	return req, nil
}

// Reply is the OTLP/HTTP success body for sig in enc: the signal's
// Export…ServiceResponse, with partial_success when records were rejected.
func Reply(sig Signal, enc Encoding, rejected int64, reason string) ([]byte, error) {
	var m proto.Message
	switch sig {
	case Logs:
		r := &collogs.ExportLogsServiceResponse{}
		if rejected > 0 {
			r.PartialSuccess = &collogs.ExportLogsPartialSuccess{RejectedLogRecords: rejected, ErrorMessage: reason}
		}
		m = r
	case Metrics:
		r := &colmetrics.ExportMetricsServiceResponse{}
		if rejected > 0 {
			r.PartialSuccess = &colmetrics.ExportMetricsPartialSuccess{RejectedDataPoints: rejected, ErrorMessage: reason}
		}
		m = r
	default:
		r := &coltrace.ExportTraceServiceResponse{}
		if rejected > 0 {
			r.PartialSuccess = &coltrace.ExportTracePartialSuccess{RejectedSpans: rejected, ErrorMessage: reason}
		}
		m = r
	}
	if enc == JSON {
		return protojson.Marshal(m)
	}
	return proto.Marshal(m)
}

// StatusBody is an OTLP/HTTP failure body (400, 413, 429): a
// google.rpc.Status with its code and message, in enc. The slim OTLP
// module carries no google.rpc types, so the two fields are written with
// protobuf's own wire encoder (code = 1, message = 2).
func StatusBody(enc Encoding, code int32, message string) []byte {
	if enc == JSON {
		b, _ := json.Marshal(struct {
			Code    int32  `json:"code"`
			Message string `json:"message"`
		}{code, message})
		return b
	}
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(code))
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	return protowire.AppendString(b, message)
}

// gRPC's codes, for StatusBody.
const (
	CodeInvalidArgument   = 3
	CodeResourceExhausted = 8
)
