package push

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"

	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/logx"
)

// Errors of the Web Push channel's subscribers.
var (
	// ErrTooManySubscriptions: Subscribe found the channel full.
	ErrTooManySubscriptions = errors.New("too many push subscriptions")
	// ErrInsecureEndpoint: an http endpoint, which only tests may use.
	ErrInsecureEndpoint = errors.New("endpoint must be https")
	// ErrNoSubscriptions: a test message found no browser to go to (a
	// test that reaches nobody has not worked).
	ErrNoSubscriptions = errors.New("no browser has turned pushes on (the pane's This browser group, Push to this device)")
)

// DefaultSubscriber is the VAPID "sub" claim unless WebPushOptions names
// one: the push services want an https URL or a mailto: to reach the
// sender's operator, and Apple's refuses a localhost one.
const DefaultSubscriber = "https://github.com/notch-web/notch-web"

// sendParallel is how many push requests one Send has out at once.
const sendParallel = 4

// WebPushOptions are the Web Push channel's dependencies.
type WebPushOptions struct {
	// Dir holds vapid.json and push-subscriptions.json:
	// $DSH_HOME/state/agents-notch.
	Dir string
	Log *slog.Logger
	// Client sends to the push services (nil: a client with a 10 s
	// timeout). It never follows a redirect: a push service answers, it
	// does not send the message on.
	Client *http.Client
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Subscriber is the VAPID sub claim (an https URL or mailto:; "":
	// DefaultSubscriber).
	Subscriber string
	// MaxSubscriptions bounds the subscriptions (0: MaxSubscriptions).
	MaxSubscriptions int
	// LoopbackHTTP lets an endpoint be http to a loopback host: for a
	// stand-in push service in tests, never in production.
	LoopbackHTTP bool
	// Paired reports whether a device (a subscription's, never "") is
	// still paired; a subscription of one that is not is dropped before a
	// send, however it was unpaired. nil: every device is.
	Paired func(device string) bool
}

// WebPush is the Web Push channel (RFC 8030), named "webpush": it sends
// each message to every browser that subscribed, encrypted for that
// browser (RFC 8291, aes128gcm) and signed with the host's VAPID key (RFC
// 8292) by github.com/SherClockHolmes/webpush-go. The board's service
// worker (web/static/sw.js) shows it, with its answer buttons.
//
// The key pair is made on first use (PublicKey, or a Send with someone
// subscribed) in Dir/vapid.json; the subscriptions live in
// Dir/push-subscriptions.json; both mode 0600. A file that does not parse
// is left as it is and reported by every call until it is fixed or
// removed (a new key would orphan every subscription).
//
// It is safe for concurrent use: the engine sends while the web handlers
// subscribe.
type WebPush struct {
	o   WebPushOptions
	now func() time.Time

	mu     sync.Mutex
	keys   *vapidKeys // nil until loaded or made
	subs   []Subscription
	loaded bool // subs read from the file (or there is none)
}

var _ Channel = (*WebPush)(nil)

// NewWebPush returns the Web Push channel over the files in o.Dir. It
// reads nothing yet: a file that does not parse is reported when used.
func NewWebPush(o WebPushOptions) *WebPush {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	o.Client = noRedirects(o.Client)
	if o.Subscriber == "" {
		o.Subscriber = DefaultSubscriber
	}
	if o.MaxSubscriptions <= 0 {
		o.MaxSubscriptions = MaxSubscriptions
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return &WebPush{o: o, now: now}
}

// Name is "webpush".
func (w *WebPush) Name() string { return "webpush" }

// PublicKey is the VAPID public key (base64url, no padding) a browser
// subscribes with, made and stored on first use.
func (w *WebPush) PublicKey() (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k, err := w.keysLocked()
	if err != nil {
		return "", err
	}
	return k.public, nil
}

// ErrNoKey: no VAPID key pair has been made yet (Key makes none).
var ErrNoKey = errors.New("no VAPID key yet")

// Key is the VAPID public key as it stands on disk: read, never made, so
// that GET /agents-notch/push/key changes nothing (the host makes the pair
// at start with PublicKey; a Subscribe makes it too). ErrNoKey when there
// is none.
func (w *WebPush) Key() (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k, ok, err := w.readKeysLocked()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", ErrNoKey
	}
	return k.public, nil
}

func (w *WebPush) vapidPath() string { return filepath.Join(w.o.Dir, VAPIDFile) }
func (w *WebPush) subsPath() string  { return filepath.Join(w.o.Dir, SubscriptionsFile) }

// keysLocked loads the key pair, or makes it when there is no file. A new
// pair orphans every stored subscription, so they go with the old one.
func (w *WebPush) keysLocked() (vapidKeys, error) {
	if k, ok, err := w.readKeysLocked(); err != nil || ok {
		return k, err
	}
	if err := w.loadLocked(); err != nil {
		return vapidKeys{}, err
	}
	k, data, err := makeVAPID(w.now())
	if err != nil {
		return vapidKeys{}, err
	}
	if len(w.subs) > 0 {
		orphans := len(w.subs)
		if err := w.saveLocked(nil); err != nil {
			return vapidKeys{}, err
		}
		w.o.Log.Warn("a new VAPID key: the subscriptions made with the old one are dropped", "log_type", logx.TypePush,
			slog.Group("data", "dropped", orphans))
	}
	if err := fsx.WriteFilePrivate(w.vapidPath(), data); err != nil {
		return vapidKeys{}, err
	}
	w.o.Log.Info("made the VAPID key pair", "log_type", logx.TypePush, slog.Group("data", "path", w.vapidPath()))
	w.keys = &k
	return k, nil
}

// readKeysLocked loads the key pair from vapid.json; ok is false when
// there is no file.
func (w *WebPush) readKeysLocked() (k vapidKeys, ok bool, err error) {
	if w.keys != nil {
		return *w.keys, true, nil
	}
	data, err := fsx.ReadFileLimit(w.vapidPath(), maxVAPIDFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return vapidKeys{}, false, nil
	case err != nil:
		return vapidKeys{}, false, err
	}
	if k, err = parseVAPID(data); err != nil {
		return vapidKeys{}, false, fmt.Errorf("%s: %v (remove it to make a new key; every browser then subscribes again)", w.vapidPath(), err)
	}
	w.keys = &k
	return k, true, nil
}

// loadLocked reads the subscriptions once (again after a failure, so a
// fixed file is taken without a restart).
func (w *WebPush) loadLocked() error {
	if w.loaded {
		return nil
	}
	data, err := fsx.ReadFileLimit(w.subsPath(), maxSubscriptionsFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		w.subs = nil
	case err != nil:
		return err
	default:
		subs, err := parseSubscriptions(data, w.o.MaxSubscriptions)
		if err != nil {
			return fmt.Errorf("%s: %v (fix or remove it)", w.subsPath(), err)
		}
		w.subs = subs
	}
	w.loaded = true
	return nil
}

// saveLocked replaces the subscriptions, on disk first.
func (w *WebPush) saveLocked(subs []Subscription) error {
	data, err := marshalSubscriptions(subs)
	if err != nil {
		return err
	}
	if err := fsx.WriteFilePrivate(w.subsPath(), data); err != nil {
		return err
	}
	w.subs = subs
	return nil
}

// Subscribe stores s (from ParseSubscription) for device ("" for a local
// browser) and returns it as stored. The same subscription again changes
// nothing; the same endpoint with other keys or another device replaces its
// entry (created stays); a paired
// device's new subscription replaces its old one (a browser has one).
// Refused: an http endpoint unless LoopbackHTTP (ErrInsecureEndpoint), a
// bad device id, and a full channel (ErrTooManySubscriptions).
func (w *WebPush) Subscribe(s Subscription, device string) (Subscription, error) {
	if err := checkEndpoint(s.Endpoint); err != nil {
		return Subscription{}, err
	}
	if u, _ := url.Parse(s.Endpoint); u.Scheme != "https" && !w.o.LoopbackHTTP {
		return Subscription{}, ErrInsecureEndpoint
	}
	if err := checkDevice(device); err != nil {
		return Subscription{}, err
	}
	s.ID, s.Device = subscriptionID(s.Endpoint), device
	w.mu.Lock()
	defer w.mu.Unlock()
	// The browser subscribed with the key, so there is one; were it made
	// only now, it would drop every stored subscription after this one.
	if err := w.loadLocked(); err != nil {
		return Subscription{}, err
	}
	if _, err := w.keysLocked(); err != nil {
		return Subscription{}, err
	}
	for _, old := range w.subs {
		if old.ID == s.ID && old.P256dh == s.P256dh && old.Auth == s.Auth && old.Device == s.Device {
			return old, nil // the pane says it again on every load: nothing to write
		}
	}
	s.Created = w.now().UTC()
	subs := make([]Subscription, 0, len(w.subs)+1)
	for _, old := range w.subs {
		switch {
		case old.ID == s.ID:
			s.Created = old.Created
		case device != "" && old.Device == device:
		default:
			subs = append(subs, old)
		}
	}
	if len(subs) >= w.o.MaxSubscriptions {
		return Subscription{}, fmt.Errorf("%w (%d): turn pushes off in a browser that no longer needs them", ErrTooManySubscriptions, w.o.MaxSubscriptions)
	}
	if err := w.saveLocked(append(subs, s)); err != nil {
		return Subscription{}, err
	}
	w.o.Log.Info("a browser subscribed to pushes", "log_type", logx.TypePush,
		slog.Group("data", "subscription", s.ID, "device", s.Device, "host", endpointHost(s.Endpoint), "subscriptions", len(subs)+1))
	return s, nil
}

// Unsubscribe forgets the subscription with endpoint, reporting whether
// there was one. Knowing the endpoint is the authority: only its browser
// (and its push service) does.
func (w *WebPush) Unsubscribe(endpoint string) (bool, error) {
	id := subscriptionID(endpoint)
	return w.drop("a browser unsubscribed from pushes", func(s Subscription) bool { return s.ID == id })
}

// DropDevice forgets every subscription of a paired device (a revoked
// device is pushed nothing more); device "" is refused.
func (w *WebPush) DropDevice(device string) (int, error) {
	if device == "" {
		return 0, errors.New("no device named")
	}
	n := 0
	_, err := w.drop("a revoked device's push subscriptions dropped", func(s Subscription) bool {
		if s.Device == device {
			n++
			return true
		}
		return false
	})
	return n, err
}

// drop removes the subscriptions gone says, logging why.
func (w *WebPush) drop(why string, gone func(Subscription) bool) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.loadLocked(); err != nil {
		return false, err
	}
	var dropped []Subscription
	keep := slices.DeleteFunc(slices.Clone(w.subs), func(s Subscription) bool {
		if gone(s) {
			dropped = append(dropped, s)
			return true
		}
		return false
	})
	if len(dropped) == 0 {
		return false, nil
	}
	if err := w.saveLocked(keep); err != nil {
		return false, err
	}
	for _, s := range dropped {
		w.o.Log.Info(why, "log_type", logx.TypePush,
			slog.Group("data", "subscription", s.ID, "device", s.Device, "host", endpointHost(s.Endpoint)))
	}
	return true, nil
}

// Subscriptions is a copy of the stored subscriptions (for the pane's
// count and the tests).
func (w *WebPush) Subscriptions() ([]Subscription, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.loadLocked(); err != nil {
		return nil, err
	}
	return slices.Clone(w.subs), nil
}

// Send pushes m to every subscription, each with the actions m.Mint makes
// for it (recipient: the subscription's ID; device: its device). A
// subscription its push service says is gone (404, 410) is dropped; any
// other failure is returned (naming the push service's host only), after
// every subscription was tried. A test message (KindTest) with nobody
// subscribed is ErrNoSubscriptions; any other is then sent to nobody.
func (w *WebPush) Send(ctx context.Context, m Message) error {
	if m.Tag == "" {
		return errors.New("webpush: a message without a tag")
	}
	if m.Kind == KindTest {
		if subs, err := w.Subscriptions(); err == nil && len(subs) == 0 {
			return ErrNoSubscriptions
		}
	}
	return w.deliver(ctx, topicOf(m.Tag), timingOf(m.Kind), func(s Subscription) ([]byte, error) {
		var actions []Action
		if m.Mint != nil {
			actions = m.Mint(s.ID, s.Device)
		}
		return marshalShow(m, actions)
	})
}

// Withdraw pushes a close message for tag to every subscription: the
// service worker takes the notification away. It shares the show's Topic,
// so a push service still holding an undelivered show replaces it.
func (w *WebPush) Withdraw(ctx context.Context, tag string) error {
	payload, err := marshalClose(tag)
	if err != nil {
		return err
	}
	return w.deliver(ctx, topicOf(tag), closeTiming, func(Subscription) ([]byte, error) { return payload, nil })
}

// topicOf is the RFC 8030 Topic of a tag's messages: 32 base64url
// characters of its hash (a Topic is at most 32 from that alphabet, and
// need not say what it is about).
func topicOf(tag string) string {
	sum := sha256.Sum256([]byte("notch-web push topic\x00" + tag))
	return b64.EncodeToString(sum[:])[:32]
}

// deliver sends each subscription its payload, sendParallel at a time.
func (w *WebPush) deliver(ctx context.Context, topic string, t pushTiming, payload func(Subscription) ([]byte, error)) error {
	w.mu.Lock()
	err := w.loadLocked()
	var keys vapidKeys
	if err == nil && len(w.subs) > 0 {
		keys, err = w.keysLocked() // first: a new key drops the subscriptions
	}
	subs := slices.Clone(w.subs)
	w.mu.Unlock()
	if err != nil {
		return fmt.Errorf("webpush: %w", err)
	}
	if p := w.o.Paired; p != nil {
		unpaired := map[string]bool{}
		subs = slices.DeleteFunc(subs, func(s Subscription) bool {
			if s.Device != "" && !p(s.Device) {
				unpaired[s.ID] = true
				return true
			}
			return false
		})
		if len(unpaired) > 0 {
			if _, err := w.drop("a push subscription's device is no longer paired: dropped", func(s Subscription) bool { return unpaired[s.ID] }); err != nil {
				return fmt.Errorf("webpush: %w", err)
			}
		}
	}
	errs := make([]error, len(subs))
	gone := make([]bool, len(subs))
	sem := make(chan struct{}, sendParallel)
	var wg sync.WaitGroup
	for i, s := range subs {
		body, err := payload(s)
		if err != nil {
			errs[i] = fmt.Errorf("webpush to %s: %w", endpointHost(s.Endpoint), err)
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			defer logx.Guard(w.o.Log)()
			gone[i], errs[i] = w.post(ctx, s, body, keys, topic, t)
		}()
	}
	wg.Wait()
	ids := map[string]bool{}
	for i, s := range subs {
		if gone[i] {
			ids[s.ID] = true
		}
	}
	if len(ids) > 0 {
		if _, err := w.drop("a push service says a subscription is gone", func(s Subscription) bool { return ids[s.ID] }); err != nil {
			errs = append(errs, fmt.Errorf("webpush: %w", err))
		}
	}
	return errors.Join(errs...)
}

// post sends one message, reporting whether the subscription is gone. Its
// error names the push service's host, never the endpoint (a capability).
func (w *WebPush) post(ctx context.Context, s Subscription, body []byte, k vapidKeys, topic string, t pushTiming) (gone bool, err error) {
	host := endpointHost(s.Endpoint)
	// A copy: the library pads the message by appending to it, which
	// would write into a payload shared by the goroutines of a Withdraw.
	resp, err := webpush.SendNotificationWithContext(ctx, bytes.Clone(body),
		&webpush.Subscription{Endpoint: s.Endpoint, Keys: webpush.Keys{P256dh: s.P256dh, Auth: s.Auth}},
		&webpush.Options{
			HTTPClient:      w.o.Client,
			Subscriber:      w.o.Subscriber,
			Topic:           topic,
			TTL:             int(t.ttl / time.Second),
			Urgency:         t.urgency,
			VAPIDPublicKey:  k.public,
			VAPIDPrivateKey: k.private,
		})
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its URL is the endpoint
		}
		return false, fmt.Errorf("webpush to %s: %w", host, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return false, nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return true, nil
	}
	w.o.Log.Warn("a push service refused a message", "log_type", logx.TypePush,
		slog.Group("data", "subscription", s.ID, "host", host, "status", resp.StatusCode))
	return false, fmt.Errorf("webpush to %s: %s", host, resp.Status)
}
