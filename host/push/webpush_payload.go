package push

import (
	"encoding/json"
	"errors"
	"time"
	"unicode/utf8"

	webpush "github.com/SherClockHolmes/webpush-go"

	"github.com/notch-web/notch-web/internal/textrule"
)

// MaxPayload is the most JSON one Web Push message carries: the library
// pads every message to one aes128gcm record of webpush.MaxRecordSize
// (4096) bytes, which holds the header (a 16-byte salt, the 4-byte record
// size, the key's length and the 65-byte key), the 16-byte AEAD tag and the
// padding delimiter besides the plaintext (RFC 8188, RFC 8291 §4). A push
// service takes at least 4096 bytes of body (RFC 8030 §7.2).
const MaxPayload = int(webpush.MaxRecordSize) - (16 + 4 + 1 + 65) - 16 - 1

// ErrPayloadTooLarge: a message does not fit MaxPayload even with its body
// and title cut to nothing (its tag, URL or actions alone are too long).
var ErrPayloadTooLarge = errors.New("push message too large")

// showPayload is the service worker's "show" message (web/static/sw.js).
type showPayload struct {
	Type    string          `json:"type"` // "show"
	Tag     string          `json:"tag"`
	Kind    string          `json:"kind"`
	Title   string          `json:"title"`
	Body    string          `json:"body"`
	URL     string          `json:"url"`
	At      int64           `json:"at"` // ms since the epoch; 0: unknown
	Actions []payloadAction `json:"actions"`
}

// payloadAction is one answer button.
type payloadAction struct {
	Action string `json:"action"` // "allow" | "deny"
	Title  string `json:"title"`
	URL    string `json:"url"`
	Cap    string `json:"cap"`
}

// closePayload is the service worker's "close" message: the notification
// tagged Tag is taken away.
type closePayload struct {
	Type string `json:"type"` // "close"
	Tag  string `json:"tag"`
}

// marshalShow is m with actions as the service worker reads it, at most
// MaxPayload bytes: the body is cut first (ending "…"), then the title;
// the JSON's shape is never cut. Text is text-ruled once more here, so a
// hidden character the engine let through still never reaches a screen.
func marshalShow(m Message, actions []Action) ([]byte, error) {
	p := showPayload{
		Type: "show", Tag: m.Tag, Kind: m.Kind,
		Title: clean(m.Title), Body: clean(m.Body), URL: m.URL,
		Actions: make([]payloadAction, 0, len(actions)),
	}
	if !m.At.IsZero() {
		p.At = m.At.UnixMilli()
	}
	for _, a := range actions {
		p.Actions = append(p.Actions, payloadAction{Action: a.ID, Title: clean(a.Label), URL: a.URL, Cap: a.Cap})
	}
	b, err := json.Marshal(p)
	if err != nil || len(b) <= MaxPayload {
		return b, err
	}
	for _, f := range []*string{&p.Body, &p.Title} {
		full := *f
		// The longest cut that fits: fits is monotone in n.
		lo, hi := 0, utf8.RuneCountInString(full) // fits(lo) is unknown, fits(hi) false
		*f = ""
		if b, _ = json.Marshal(p); len(b) > MaxPayload {
			continue // even none of this field is too much: cut the next
		}
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			*f = cut(full, mid)
			if b, _ = json.Marshal(p); len(b) <= MaxPayload {
				lo = mid
			} else {
				hi = mid
			}
		}
		*f = cut(full, lo)
		return json.Marshal(p)
	}
	return nil, ErrPayloadTooLarge
}

// marshalClose is the close message for tag.
func marshalClose(tag string) ([]byte, error) {
	b, err := json.Marshal(closePayload{Type: "close", Tag: tag})
	if err == nil && len(b) > MaxPayload {
		return nil, ErrPayloadTooLarge
	}
	return b, err
}

// cut is s's first n characters and "…", or "" for n 0, or s when it has
// no more than n.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "…"
		}
		i++
	}
	return s
}

// clean replaces what must never be shown as itself (textrule) with U+FFFD.
func clean(s string) string { return textrule.Replace(s, utf8.RuneError) }

// pushTiming is how long a push service keeps an undelivered message and
// how soon it wakes the device for it (RFC 8030 §5.2, §5.3).
type pushTiming struct {
	ttl     time.Duration
	urgency webpush.Urgency
}

// timingOf is a kind's timing: a session that waits on the human (or a
// summary, which is one) wakes the device at once; a failure at normal
// urgency; a finish may wait for the device to be awake. A test is for now
// or never. A close must outlive any show it takes away, so it lives as
// long as the longest (closeTiming).
func timingOf(kind string) pushTiming {
	switch kind {
	case KindNeedsYou, KindSummary:
		return pushTiming{time.Hour, webpush.UrgencyHigh}
	case KindFailed:
		return pushTiming{time.Hour, webpush.UrgencyNormal}
	case KindFinished:
		return pushTiming{15 * time.Minute, webpush.UrgencyLow}
	case KindTest:
		return pushTiming{5 * time.Minute, webpush.UrgencyHigh}
	}
	return pushTiming{time.Hour, webpush.UrgencyNormal}
}

var closeTiming = pushTiming{time.Hour, webpush.UrgencyNormal}
