package push

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/pushtest"
)

// syncBuffer is a log the channel's goroutines may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newTestWebPush is a channel over a fresh folder, sending to st.
func newTestWebPush(t *testing.T, st *pushtest.Service) (*WebPush, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	w := NewWebPush(WebPushOptions{
		Dir:    filepath.Join(t.TempDir(), "state", "agents-notch"),
		Log:    logx.New(log, slog.LevelDebug),
		Client: st.Server.Client(),
	})
	return w, log
}

// subscribe subscribes a new browser of st for device, as the route does.
func subscribe(t *testing.T, w *WebPush, st *pushtest.Service, name, device string) (*pushtest.Browser, Subscription) {
	t.Helper()
	b, endpoint := st.Browser(name)
	s, err := ParseSubscription(b.SubscriptionJSON(endpoint))
	if err != nil {
		t.Fatal(err)
	}
	s, err = w.Subscribe(s, device)
	if err != nil {
		t.Fatal(err)
	}
	return b, s
}

// wire is a decrypted message as the service worker reads it.
type wire struct {
	Type, Tag, Kind, Title, Body, URL string
	At                                int64
	Actions                           []struct{ Action, Title, URL, Cap string }
}

func decode(t *testing.T, r pushtest.Received) wire {
	t.Helper()
	var m wire
	dec := json.NewDecoder(bytes.NewReader(r.Payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: the payload is not the service worker's JSON: %v\n%s", r.Browser, err, r.Payload)
	}
	return m
}

func byBrowser(t *testing.T, got []pushtest.Received) map[string]pushtest.Received {
	t.Helper()
	m := map[string]pushtest.Received{}
	for _, r := range got {
		if _, dup := m[r.Browser]; dup {
			t.Errorf("%s got two messages", r.Browser)
		}
		m[r.Browser] = r
	}
	return m
}

// mintFor is a Mint that records its calls and makes a cap naming them.
func mintFor(calls *[]string) func(recipient, device string) []Action {
	return func(recipient, device string) []Action {
		*calls = append(*calls, recipient+"|"+device)
		return []Action{
			{ID: "allow", Label: "Allow once", URL: "https://board.example/agents-notch/act", Cap: "cap-allow-" + recipient + "-" + device},
			{ID: "deny", Label: "Deny", URL: "https://board.example/agents-notch/act", Cap: "cap-deny-" + recipient + "-" + device},
		}
	}
}

// A needs-you reaches every subscribed browser, encrypted for each,
// signed with the host's key, each with its own caps; the close for its
// tag follows with the same Topic, and the log never holds an endpoint.
func TestWebPushShowThenClose(t *testing.T) {
	st := pushtest.NewService(t)
	w, log := newTestWebPush(t, st)
	key, err := w.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	_, phone := subscribe(t, w, st, "phone", "dev-phone")
	_, laptop := subscribe(t, w, st, "laptop", "")

	var calls []string
	at := time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)
	m := Message{
		Tag: "row-1", Kind: KindNeedsYou, Title: "mac · notch-web · claude — fix tests", Body: "Bash: go test ./...",
		URL: "https://board.example/agents-notch/", At: at, Mint: mintFor(&calls),
	}
	if err := w.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	got := byBrowser(t, st.Messages())
	if len(got) != 2 {
		t.Fatalf("%d browsers got the message, want 2", len(got))
	}
	if len(calls) != 2 || !strings.Contains(strings.Join(calls, " "), phone.ID+"|dev-phone") || !strings.Contains(strings.Join(calls, " "), laptop.ID+"|") {
		t.Errorf("Mint calls %v, want one per subscription with its device", calls)
	}
	topic := ""
	for name, s := range map[string]Subscription{"phone": phone, "laptop": laptop} {
		r := got[name]
		if r.VAPIDKey != key {
			t.Errorf("%s: signed with k=%s, want the host's key %s", name, r.VAPIDKey, key)
		}
		if h := r.Header; h.Get("Urgency") != "high" || h.Get("TTL") != "3600" {
			t.Errorf("%s: Urgency %q TTL %q, want high and 3600 for needs-you", name, h.Get("Urgency"), h.Get("TTL"))
		}
		if topic = r.Header.Get("Topic"); len(topic) != 32 {
			t.Errorf("%s: Topic %q, want 32 characters", name, topic)
		}
		p := decode(t, r)
		if p.Type != "show" || p.Tag != "row-1" || p.Kind != KindNeedsYou || p.Title != m.Title || p.Body != m.Body || p.URL != m.URL || p.At != at.UnixMilli() {
			t.Errorf("%s: payload %+v", name, p)
		}
		if len(p.Actions) != 2 || p.Actions[0].Action != "allow" || p.Actions[0].Title != "Allow once" || p.Actions[1].Action != "deny" ||
			p.Actions[0].Cap != "cap-allow-"+s.ID+"-"+s.Device || p.Actions[0].URL != "https://board.example/agents-notch/act" {
			t.Errorf("%s: actions %+v, want its own Allow once / Deny", name, p.Actions)
		}
	}

	if err := w.Withdraw(context.Background(), "row-1"); err != nil {
		t.Fatal(err)
	}
	got = byBrowser(t, st.Messages())
	if len(got) != 2 {
		t.Fatalf("%d browsers got the close, want 2", len(got))
	}
	for name, r := range got {
		if string(r.Payload) != `{"type":"close","tag":"row-1"}` {
			t.Errorf("%s: close payload %s", name, r.Payload)
		}
		if r.Header.Get("Topic") != topic {
			t.Errorf("%s: close Topic %q, want the show's %q (so a pending show is replaced)", name, r.Header.Get("Topic"), topic)
		}
	}
	if l := log.String(); strings.Contains(l, "SECRET") {
		t.Errorf("the log holds an endpoint:\n%s", l)
	}
}

// Each kind's TTL and Urgency. A test with nobody subscribed says so.
func TestWebPushTiming(t *testing.T) {
	st := pushtest.NewService(t)
	w, _ := newTestWebPush(t, st)
	if err := w.Send(context.Background(), Message{Tag: "test", Kind: KindTest}); !errors.Is(err, ErrNoSubscriptions) {
		t.Errorf("a test to nobody: %v, want ErrNoSubscriptions", err)
	}
	if err := w.Send(context.Background(), Message{Tag: "row", Kind: KindNeedsYou}); err != nil {
		t.Errorf("a needs-you to nobody: %v", err)
	}
	subscribe(t, w, st, "b", "")
	for _, tc := range []struct{ kind, urgency, ttl string }{
		{KindNeedsYou, "high", "3600"},
		{KindSummary, "high", "3600"},
		{KindFailed, "normal", "3600"},
		{KindFinished, "low", "900"},
		{KindTest, "high", "300"},
	} {
		if err := w.Send(context.Background(), Message{Tag: "t", Kind: tc.kind, Title: "x"}); err != nil {
			t.Fatal(err)
		}
		got := st.Messages()
		if len(got) != 1 {
			t.Fatalf("%s: %d messages", tc.kind, len(got))
		}
		if got[0].Header.Get("Urgency") != tc.urgency || got[0].Header.Get("TTL") != tc.ttl {
			t.Errorf("%s: Urgency %q TTL %q; want %s %s", tc.kind, got[0].Header.Get("Urgency"), got[0].Header.Get("TTL"), tc.urgency, tc.ttl)
		}
		if p := decode(t, got[0]); len(p.Actions) != 0 || p.Kind != tc.kind {
			t.Errorf("%s: %+v (no Mint: no actions)", tc.kind, p)
		}
	}
}

// A push service's 410 or 404 drops that subscription (from the file too);
// a 500 is an error naming the service's host only, and keeps it.
func TestWebPushGoneDropsSubscription(t *testing.T) {
	st := pushtest.NewService(t)
	w, log := newTestWebPush(t, st)
	subscribe(t, w, st, "gone", "")
	subscribe(t, w, st, "notfound", "d2")
	_, kept := subscribe(t, w, st, "kept", "d3")
	_, flaky := subscribe(t, w, st, "flaky", "d4")
	st.SetStatus("gone", http.StatusGone)
	st.SetStatus("notfound", http.StatusNotFound)
	st.SetStatus("flaky", http.StatusInternalServerError)

	err := w.Send(context.Background(), Message{Tag: "row", Kind: KindFailed, Title: "t"})
	if err == nil || !strings.Contains(err.Error(), "500") || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), st.Server.Listener.Addr().String()) {
		t.Errorf("Send: %v; want the 500 named by host only", err)
	}
	if got := st.Messages(); len(got) != 1 || got[0].Browser != "kept" {
		t.Errorf("delivered %v, want only kept", got)
	}
	subs, _ := w.Subscriptions()
	if len(subs) != 2 || subs[0].ID != kept.ID || subs[1].ID != flaky.ID {
		t.Errorf("left %+v, want kept and flaky", subs)
	}
	// A new channel over the same folder reads the same two.
	// A new channel over the same folder (a restart) keeps the two when a
	// third browser subscribes.
	again := NewWebPush(WebPushOptions{Dir: w.o.Dir, Client: st.Server.Client()})
	subscribe(t, again, st, "third", "")
	if subs, err := again.Subscriptions(); err != nil || len(subs) != 3 {
		t.Errorf("the file holds %d subscriptions (%v), want 3", len(subs), err)
	}
	l := log.String()
	if strings.Contains(l, "SECRET") {
		t.Errorf("the log holds an endpoint:\n%s", l)
	}
	if strings.Count(l, "a push service says a subscription is gone") != 2 || !strings.Contains(l, `"status":500`) {
		t.Errorf("the log does not say what was dropped and what failed:\n%s", l)
	}
}

// Hostile text stays inside the JSON: quotes, markup, control and bidi
// characters and a megabyte of body make a payload of the same shape, at
// most MaxPayload bytes, the body cut with "…", nothing hidden left.
func TestWebPushHostileText(t *testing.T) {
	st := pushtest.NewService(t)
	w, _ := newTestWebPush(t, st)
	subscribe(t, w, st, "b", "")
	title := `"},"type":"close","tag":"x <img src=x onerror=alert(1)>` + "\x1b[2J\u202e\u0000"
	body := strings.Repeat("é<b>\"\\", 200_000)
	var calls []string
	if err := w.Send(context.Background(), Message{Tag: "row", Kind: KindNeedsYou, Title: title, Body: body, Mint: mintFor(&calls)}); err != nil {
		t.Fatal(err)
	}
	got := st.Messages()
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	if len(got[0].Payload) > MaxPayload {
		t.Errorf("payload of %d bytes, over %d", len(got[0].Payload), MaxPayload)
	}
	p := decode(t, got[0])
	if p.Type != "show" || p.Tag != "row" || len(p.Actions) != 2 {
		t.Errorf("the shape changed: %+v", p)
	}
	wantTitle := `"},"type":"close","tag":"x <img src=x onerror=alert(1)>` + "\uFFFD[2J\uFFFD\uFFFD"
	if p.Title != wantTitle {
		t.Errorf("title %q, want %q", p.Title, wantTitle)
	}
	if !strings.HasSuffix(p.Body, "…") || !strings.HasPrefix(body, strings.TrimSuffix(p.Body, "…")) || len(p.Body) < 1000 {
		t.Errorf("body of %d bytes: not the body's start cut with …", len(p.Body))
	}
}

// marshalShow's bound, for fields of every size: the payload is valid
// JSON of the show shape within MaxPayload, or ErrPayloadTooLarge only
// when the fixed fields alone are over.
func TestMarshalShowBound(t *testing.T) {
	for _, tc := range []struct {
		name         string
		title, body  string
		url          string
		wantErr      bool
		wantBodyCut  bool
		wantTitleCut bool
	}{
		{"small", "t", "b", "https://x/", false, false, false},
		{"long body", "t", strings.Repeat("b", 5000), "https://x/", false, true, false},
		{"long both", strings.Repeat("t", 5000), strings.Repeat("b", 5000), "https://x/", false, true, true},
		{"multibyte", strings.Repeat("日本", 3000), strings.Repeat("🙂", 3000), "", false, true, true},
		{"escapes", strings.Repeat("<", 3000), strings.Repeat(`"`, 3000), "", false, true, true},
		{"url too long", "t", "b", "https://x/" + strings.Repeat("u", 5000), true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := marshalShow(Message{Tag: "tag", Kind: KindNeedsYou, Title: tc.title, Body: tc.body, URL: tc.url}, nil)
			if tc.wantErr {
				if !errors.Is(err, ErrPayloadTooLarge) {
					t.Fatalf("err %v, want ErrPayloadTooLarge", err)
				}
				return
			}
			if err != nil || len(b) > MaxPayload {
				t.Fatalf("%d bytes, %v", len(b), err)
			}
			var p showPayload
			if err := json.Unmarshal(b, &p); err != nil || p.Type != "show" || p.Tag != "tag" || p.Actions == nil {
				t.Fatalf("not the show shape: %v %s", err, b)
			}
			if cut := p.Body != tc.body; cut != tc.wantBodyCut {
				t.Errorf("body cut %v, want %v", cut, tc.wantBodyCut)
			}
			if cut := p.Title != tc.title; cut != tc.wantTitleCut {
				t.Errorf("title cut %v, want %v", cut, tc.wantTitleCut)
			}
			if tc.wantBodyCut && !tc.wantTitleCut && MaxPayload-len(b) > 8 {
				t.Errorf("%d bytes: the body was cut more than it had to be", len(b))
			}
			if !utf8.ValidString(p.Body) || !utf8.ValidString(p.Title) {
				t.Error("a cut split a character")
			}
		})
	}
}

// The key pair is made on first use, mode 0600, and read back by the next
// channel over the same folder; a file that does not parse is refused and
// left as it is.
func TestVAPIDKeyFile(t *testing.T) {
	dir := t.TempDir()
	w := NewWebPush(WebPushOptions{Dir: dir})
	if _, err := os.Stat(filepath.Join(dir, VAPIDFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a key before first use: %v", err)
	}
	key, err := w.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, VAPIDFile))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("vapid.json mode %v, want 0600", info.Mode().Perm())
	}
	if k2, err := NewWebPush(WebPushOptions{Dir: dir}).PublicKey(); err != nil || k2 != key {
		t.Errorf("a second channel's key %q (%v), want the stored %q", k2, err, key)
	}
	bad := []byte(`{"publicKey": "x"}`)
	os.WriteFile(filepath.Join(dir, VAPIDFile), bad, 0o600)
	if _, err := NewWebPush(WebPushOptions{Dir: dir}).PublicKey(); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("a broken vapid.json: %v, want an error saying what to do", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, VAPIDFile)); !bytes.Equal(got, bad) {
		t.Error("a broken vapid.json was overwritten")
	}
}

// A new key pair (vapid.json removed) orphans every subscription made with
// the old one: they are dropped, not pushed with a key their push service
// refuses.
func TestNewKeyDropsSubscriptions(t *testing.T) {
	st := pushtest.NewService(t)
	w, _ := newTestWebPush(t, st)
	w.PublicKey()
	subscribe(t, w, st, "b", "")
	os.Remove(filepath.Join(w.o.Dir, VAPIDFile))
	w2 := NewWebPush(WebPushOptions{Dir: w.o.Dir, Client: st.Server.Client()})
	if _, err := w2.PublicKey(); err != nil {
		t.Fatal(err)
	}
	if subs, err := w2.Subscriptions(); err != nil || len(subs) != 0 {
		t.Errorf("%d subscriptions after a new key (%v), want none", len(subs), err)
	}
}

// Subscribe: the same endpoint replaces its entry and keeps its created
// time; a paired device has one subscription; the channel is bounded; http
// only when the options allow it; a revoked device's go.
func TestSubscribe(t *testing.T) {
	st := pushtest.NewService(t)
	clock := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	w := NewWebPush(WebPushOptions{Dir: dir, Client: st.Server.Client(), MaxSubscriptions: 3, Now: func() time.Time { return clock }})
	b, endpoint := st.Browser("a")
	s, _ := ParseSubscription(b.SubscriptionJSON(endpoint))
	first, err := w.Subscribe(s, "")
	if err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Hour)
	info, _ := os.Stat(filepath.Join(dir, SubscriptionsFile))
	if same, err := w.Subscribe(s, ""); err != nil || same != first {
		t.Errorf("the same again: %+v, %v", same, err)
	}
	if info2, _ := os.Stat(filepath.Join(dir, SubscriptionsFile)); !os.SameFile(info, info2) {
		t.Error("the same subscription again rewrote the file")
	}
	again, err := w.Subscribe(s, "dev1")
	if err != nil || again.Created != first.Created || again.Device != "dev1" {
		t.Errorf("resubscribed %+v (%v): want the first created and the new device", again, err)
	}
	// dev1's new browser replaces its old subscription.
	b2, endpoint2 := st.Browser("a2")
	s2, _ := ParseSubscription(b2.SubscriptionJSON(endpoint2))
	w.Subscribe(s2, "dev1")
	if subs, _ := w.Subscriptions(); len(subs) != 1 || subs[0].ID != s2.ID {
		t.Errorf("subscriptions %+v, want only dev1's new one", subs)
	}
	for _, n := range []string{"c", "d"} {
		subscribe(t, w, st, n, "")
	}
	b5, endpoint5 := st.Browser("e")
	s5, _ := ParseSubscription(b5.SubscriptionJSON(endpoint5))
	if _, err := w.Subscribe(s5, ""); !errors.Is(err, ErrTooManySubscriptions) {
		t.Errorf("a fourth of 3: %v, want ErrTooManySubscriptions", err)
	}
	if n, err := w.DropDevice("dev1"); n != 1 || err != nil {
		t.Errorf("DropDevice: %d, %v", n, err)
	}
	if _, err := w.Subscribe(s5, ""); err != nil {
		t.Errorf("room again after a drop: %v", err)
	}
	if ok, err := w.Unsubscribe(endpoint5); !ok || err != nil {
		t.Errorf("Unsubscribe: %v, %v", ok, err)
	}
	if ok, _ := w.Unsubscribe(endpoint5); ok {
		t.Error("Unsubscribe twice said there was one")
	}
	plain, _ := ParseSubscription(b5.SubscriptionJSON("http://127.0.0.1:9/push"))
	if _, err := w.Subscribe(plain, ""); !errors.Is(err, ErrInsecureEndpoint) {
		t.Errorf("an http endpoint: %v, want ErrInsecureEndpoint", err)
	}
	loop := NewWebPush(WebPushOptions{Dir: t.TempDir(), LoopbackHTTP: true})
	if _, err := loop.Subscribe(plain, ""); err != nil {
		t.Errorf("http to loopback with LoopbackHTTP: %v", err)
	}
	if _, err := w.Subscribe(s5, "bad\u202edevice"); err == nil {
		t.Error("a device id with a bidi override was taken")
	}
	info, _ = os.Stat(filepath.Join(dir, SubscriptionsFile))
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("push-subscriptions.json mode %v, want 0600", info.Mode().Perm())
	}
}

// A subscriptions file that does not parse is reported by every call and
// left as it is; fixed, it is read without a restart.
func TestBrokenSubscriptionsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, SubscriptionsFile)
	os.WriteFile(path, []byte(`{"subscriptions": [{"id": 1}]}`), 0o600)
	w := NewWebPush(WebPushOptions{Dir: dir})
	if err := w.Send(context.Background(), Message{Tag: "t"}); err == nil || !strings.Contains(err.Error(), SubscriptionsFile) {
		t.Errorf("Send: %v, want the file named", err)
	}
	b := pushtest.NewBrowser(t, "x")
	s, _ := ParseSubscription(b.SubscriptionJSON("https://push.example/x"))
	if _, err := w.Subscribe(s, ""); err == nil {
		t.Error("Subscribe over a broken file succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != `{"subscriptions": [{"id": 1}]}` {
		t.Error("the broken file was overwritten")
	}
	os.WriteFile(path, []byte(`{"subscriptions": []}`), 0o600)
	if _, err := w.Subscribe(s, ""); err != nil {
		t.Errorf("after the fix: %v", err)
	}
}

// The stand-in's checks can fail: a message for other keys does not
// decrypt, and a JWT signed by another key does not verify.
func TestStandinChecksBite(t *testing.T) {
	st := pushtest.NewService(t)
	w, _ := newTestWebPush(t, st)
	subscribe(t, w, st, "b", "")
	st.ReplaceKeys("b") // the browser lost its keys
	w.Send(context.Background(), Message{Tag: "t", Kind: KindTest})
	bad := strings.Join(st.Failures(), "\n")
	if !strings.Contains(bad, "decrypt") {
		t.Errorf("a message for other keys was taken: %q", bad)
	}

	_, sig, _ := makeVAPID(time.Now())
	other, _ := parseVAPID(sig)
	w.mu.Lock()
	real := *w.keys
	w.keys = &vapidKeys{public: real.public, private: other.private} // signs with another key
	w.mu.Unlock()
	if _, err := checkVAPIDOf(t, w, st); err == nil || !strings.Contains(err.Error(), "does not verify") {
		t.Errorf("a JWT signed by another key: %v", err)
	}
}

// checkVAPIDOf is the Authorization w sends, checked by the stand-in.
func checkVAPIDOf(t *testing.T, w *WebPush, st *pushtest.Service) (pushtest.Claims, error) {
	t.Helper()
	var auth string
	w.o.Client.Transport = roundTrip(func(r *http.Request) (*http.Response, error) {
		auth = r.Header.Get("Authorization")
		return &http.Response{StatusCode: 201, Body: http.NoBody, Request: r}, nil
	})
	if err := w.Send(context.Background(), Message{Tag: "t", Kind: KindTest}); err != nil {
		t.Fatal(err)
	}
	c, _, err := pushtest.CheckVAPID(auth, strings.TrimSuffix(st.Server.URL, "/"))
	return c, err
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// BenchmarkWebPushSend is the channel's own work for one needs-you with
// its two buttons — per subscription an ECDH, two HKDFs, AES-GCM and an
// ES256 signature — to 1, 8 and 32 browsers, the push service answering at
// once (a transport that takes the request and says 201).
func BenchmarkWebPushSend(b *testing.B) {
	for _, n := range []int{1, 8, 32} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			w := NewWebPush(WebPushOptions{Dir: b.TempDir(), Client: &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: 201, Body: http.NoBody, Request: r}, nil
			})}})
			for i := range n {
				br := pushtest.NewBrowser(b, "b")
				s, err := ParseSubscription(br.SubscriptionJSON("https://push.example/" + strconv.Itoa(i)))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := w.Subscribe(s, ""); err != nil {
					b.Fatal(err)
				}
			}
			var calls []string
			m := Message{Tag: "row", Kind: KindNeedsYou, Title: "mac · notch-web · claude — fix the tests", Body: "Bash: go test ./...", URL: "https://b.example/agents-notch/", Mint: mintFor(&calls)}
			b.ResetTimer()
			for b.Loop() {
				calls = calls[:0]
				if err := w.Send(context.Background(), m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A subscription whose device is no longer paired (revoked however it was)
// is dropped before a send and gets nothing; a local browser's stays.
func TestWebPushSkipsUnpairedDevices(t *testing.T) {
	st := pushtest.NewService(t)
	paired := map[string]bool{"phone": true, "tablet": true}
	var mu sync.Mutex
	w := NewWebPush(WebPushOptions{Dir: t.TempDir(), Client: st.Server.Client(), Paired: func(d string) bool {
		mu.Lock()
		defer mu.Unlock()
		return paired[d]
	}})
	subscribe(t, w, st, "phone", "phone")
	subscribe(t, w, st, "tablet", "tablet")
	subscribe(t, w, st, "laptop", "")
	mu.Lock()
	delete(paired, "tablet")
	mu.Unlock()
	if err := w.Send(context.Background(), Message{Tag: "row", Kind: KindNeedsYou, Title: "t"}); err != nil {
		t.Fatal(err)
	}
	got := byBrowser(t, st.Messages())
	if _, ok := got["tablet"]; ok || len(got) != 2 {
		t.Errorf("delivered to %v, want phone and laptop only", got)
	}
	subs, _ := w.Subscriptions()
	if len(subs) != 2 {
		t.Errorf("kept %d subscriptions, want 2 (the tablet's dropped)", len(subs))
	}
}

// Reading the key changes nothing: Key never makes vapid.json (GET
// /agents-notch/push/key is a read); PublicKey, at the host's start, does,
// and Key then gives that key.
func TestKeyIsAReadThatMakesNothing(t *testing.T) {
	w, _ := newTestWebPush(t, pushtest.NewService(t))
	if _, err := w.Key(); !errors.Is(err, ErrNoKey) {
		t.Fatalf("Key on a fresh home = %v, want ErrNoKey", err)
	}
	if _, err := os.Stat(w.vapidPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Key made vapid.json (%v)", err)
	}
	made, err := w.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	again := NewWebPush(WebPushOptions{Dir: filepath.Dir(w.vapidPath())}) // a host started later
	if got, err := again.Key(); err != nil || got != made {
		t.Errorf("Key = %q, %v; want the key made at start %q", got, err, made)
	}
}
