package push

import (
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/textrule"
)

// SubscriptionsFile is the name of the stored subscriptions in the host's
// folder ($DSH_HOME/state/agents-notch), mode 0600: an endpoint is a
// capability (whoever knows it can push to that browser).
const SubscriptionsFile = "push-subscriptions.json"

// Bounds of a subscription and of the file.
const (
	// MaxSubscriptions is how many browsers can subscribe at once unless
	// WebPushOptions says otherwise.
	MaxSubscriptions = 32
	// MaxEndpoint bounds an endpoint URL (the push services' are 100 to
	// 600 bytes).
	MaxEndpoint = 2048
	// MaxDevice bounds a paired device's id.
	MaxDevice = 128
	// maxSubscriptionsFile bounds push-subscriptions.json: MaxSubscriptions
	// entries of at most MaxEndpoint and their keys fit in 128 KiB.
	maxSubscriptionsFile = 128 << 10
)

// Subscription is one browser's push subscription, as stored.
type Subscription struct {
	// ID names the subscription to the engine (Message.Mint's recipient)
	// and in the log: a hash of the endpoint, so it is stable and says
	// nothing of it.
	ID string `json:"id"`
	// Endpoint is the push service's URL for this browser. It is a
	// capability: it is never logged (only its host) and never shown.
	Endpoint string `json:"endpoint"`
	// P256dh is the browser's ECDH public key (an uncompressed P-256
	// point), Auth its 16-byte secret; both base64url without padding.
	P256dh string `json:"p256dh"`
	Auth   string `json:"auth"`
	// Device is the paired device the subscribing browser was ("" for a
	// local browser, which needs none).
	Device  string    `json:"device"`
	Created time.Time `json:"created"`
}

// subscriptionsFile is push-subscriptions.json.
type subscriptionsFile struct {
	Subscriptions []Subscription `json:"subscriptions"`
}

// browserSubscription is PushSubscription.toJSON() as a browser sends it.
type browserSubscription struct {
	Endpoint       string   `json:"endpoint"`
	ExpirationTime *float64 `json:"expirationTime"` // null in every browser today; ignored
	Keys           struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
}

// ParseSubscription reads a browser's subscription (PushSubscription's
// toJSON: {"endpoint", "expirationTime", "keys": {"p256dh", "auth"}})
// strictly: one object and nothing else, no unknown field, an endpoint
// URL as checkEndpoint allows, p256dh a 65-byte point on P-256, auth 16
// bytes (base64url, padded or not, as browsers differ). The result has
// Endpoint, P256dh, Auth (unpadded) and ID; Device and Created are the
// subscriber's to set.
func ParseSubscription(body []byte) (Subscription, error) {
	var b browserSubscription
	if err := jsonx.DecodeOne(body, &b, jsonx.Options{Strict: true}); err != nil {
		return Subscription{}, errors.New(jsonx.Reason(err))
	}
	s := Subscription{Endpoint: b.Endpoint}
	if err := checkEndpoint(s.Endpoint); err != nil {
		return Subscription{}, err
	}
	var err error
	if s.P256dh, err = checkP256dh(b.Keys.P256dh); err != nil {
		return Subscription{}, err
	}
	if s.Auth, err = checkAuth(b.Keys.Auth); err != nil {
		return Subscription{}, err
	}
	s.ID = subscriptionID(s.Endpoint)
	return s, nil
}

// ParseEndpoint reads an unsubscribe's body, {"endpoint": "…"}, strictly.
func ParseEndpoint(body []byte) (string, error) {
	var b struct {
		Endpoint string `json:"endpoint"`
	}
	if err := jsonx.DecodeOne(body, &b, jsonx.Options{Strict: true}); err != nil {
		return "", errors.New(jsonx.Reason(err))
	}
	if err := checkEndpoint(b.Endpoint); err != nil {
		return "", err
	}
	return b.Endpoint, nil
}

// checkEndpoint allows an absolute https URL with a host, no user
// information and no fragment, at most MaxEndpoint bytes; http only to a
// loopback host (a stand-in push service in tests: WebPush refuses even
// that unless WebPushOptions.LoopbackHTTP says so).
func checkEndpoint(raw string) error {
	if raw == "" {
		return errors.New("endpoint is missing")
	}
	if len(raw) > MaxEndpoint {
		return fmt.Errorf("endpoint is longer than %d bytes", MaxEndpoint)
	}
	if textrule.Has(raw) || strings.ContainsAny(raw, " \\") {
		return errors.New("endpoint is not a URL")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return errors.New("endpoint is not an absolute URL")
	}
	if u.User != nil || u.Fragment != "" || strings.Contains(raw, "#") {
		return errors.New("endpoint has user information or a fragment")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return errors.New("endpoint must be https")
		}
	default:
		return errors.New("endpoint must be https")
	}
	return nil
}

// isLoopback reports whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// endpointHost is the endpoint's host (and port): all the log ever says of it.
func endpointHost(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return u.Host
	}
	return "?"
}

// decodeKey decodes a browser's base64url key, padded or not.
func decodeKey(s string) ([]byte, bool) {
	b, err := b64.DecodeString(strings.TrimRight(s, "="))
	return b, err == nil
}

// checkP256dh returns the browser's ECDH key unpadded when it is a valid
// uncompressed P-256 point (65 bytes, on the curve).
func checkP256dh(s string) (string, error) {
	b, ok := decodeKey(s)
	if !ok || len(b) != 65 {
		return "", errors.New("keys.p256dh is not a 65-byte base64url key")
	}
	if _, err := ecdh.P256().NewPublicKey(b); err != nil {
		return "", errors.New("keys.p256dh is not a point on P-256")
	}
	return b64.EncodeToString(b), nil
}

// checkAuth returns the browser's auth secret unpadded when it is 16 bytes.
func checkAuth(s string) (string, error) {
	b, ok := decodeKey(s)
	if !ok || len(b) != 16 {
		return "", errors.New("keys.auth is not a 16-byte base64url secret")
	}
	return b64.EncodeToString(b), nil
}

// checkDevice allows "" or a paired device's id: up to MaxDevice bytes of
// text with nothing hidden.
func checkDevice(d string) error {
	if len(d) > MaxDevice || textrule.Has(d) {
		return fmt.Errorf("device is not an id of at most %d bytes of text", MaxDevice)
	}
	return nil
}

// subscriptionID is "s-" and 32 hex digits of the endpoint's sha256.
func subscriptionID(endpoint string) string {
	sum := sha256.Sum256([]byte("notch-web push subscription\x00" + endpoint))
	return "s-" + hex.EncodeToString(sum[:16])
}

// parseSubscriptions reads push-subscriptions.json strictly: every entry
// as ParseSubscription would take it, its id the endpoint's, its device an
// id, its created time set; no endpoint twice; at most max entries. An
// error names the entry at fault.
func parseSubscriptions(data []byte, max int) ([]Subscription, error) {
	var f subscriptionsFile
	if err := jsonx.DecodeOne(data, &f, jsonx.Options{Strict: true}); err != nil {
		return nil, errors.New(jsonx.Reason(err))
	}
	if f.Subscriptions == nil {
		return nil, errors.New("subscriptions is missing")
	}
	if len(f.Subscriptions) > max {
		return nil, fmt.Errorf("%d subscriptions, more than %d", len(f.Subscriptions), max)
	}
	seen := make(map[string]bool, len(f.Subscriptions))
	for i, s := range f.Subscriptions {
		bad := func(err error) error { return fmt.Errorf("subscription %d: %w", i+1, err) }
		if err := checkEndpoint(s.Endpoint); err != nil {
			return nil, bad(err)
		}
		if p, err := checkP256dh(s.P256dh); err != nil || p != s.P256dh {
			return nil, bad(errors.New("p256dh is not a 65-byte unpadded base64url point"))
		}
		if a, err := checkAuth(s.Auth); err != nil || a != s.Auth {
			return nil, bad(errors.New("auth is not a 16-byte unpadded base64url secret"))
		}
		if s.ID != subscriptionID(s.Endpoint) {
			return nil, bad(errors.New("id is not the endpoint's"))
		}
		if err := checkDevice(s.Device); err != nil {
			return nil, bad(err)
		}
		if s.Created.IsZero() {
			return nil, bad(errors.New("created is missing"))
		}
		if seen[s.ID] {
			return nil, bad(errors.New("the same endpoint twice"))
		}
		seen[s.ID] = true
	}
	return f.Subscriptions, nil
}

// marshalSubscriptions is push-subscriptions.json's bytes.
func marshalSubscriptions(subs []Subscription) ([]byte, error) {
	if subs == nil {
		subs = []Subscription{}
	}
	b, err := json.MarshalIndent(subscriptionsFile{Subscriptions: subs}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
