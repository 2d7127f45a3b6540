package web

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/internal/pushtest"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// The service worker is served from the scope's root, never cached, with a
// policy of its own, and is the file in web/static.
func TestServiceWorkerRoute(t *testing.T) {
	e := newEnv(t, envOpts{})
	res, err := http.Get(e.base + "/agents-notch/sw.js")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	want, _ := os.ReadFile("static/sw.js")
	if res.StatusCode != 200 || string(body) != string(want) {
		t.Fatalf("sw.js: %d, %d bytes; want 200 and web/static/sw.js", res.StatusCode, len(body))
	}
	h := res.Header
	if !strings.HasPrefix(h.Get("Content-Type"), "text/javascript") || h.Get("Cache-Control") != "no-cache" ||
		!strings.Contains(h.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("sw.js headers: %v", h)
	}
}

// The key made at start (mode 0600) is what the route gives, the same on
// every ask, and asking writes nothing; a follow-mode host (no Web Push)
// says it sends none.
func TestPushKeyRoute(t *testing.T) {
	e := newEnv(t, envOpts{webPush: &push.WebPushOptions{}})
	vapid := filepath.Join(e.home, "state", "agents-notch", push.VAPIDFile)
	made, err := os.ReadFile(vapid)
	if err != nil {
		t.Fatalf("no key made at start: %v", err)
	}
	var keys []string
	for range 2 {
		res, err := http.Get(e.base + "/agents-notch/push/key")
		if err != nil {
			t.Fatal(err)
		}
		var r pushKeyReply
		json.NewDecoder(res.Body).Decode(&r)
		res.Body.Close()
		raw, err := base64.RawURLEncoding.DecodeString(r.Key)
		if res.StatusCode != 200 || !r.OK || err != nil || len(raw) != 65 || raw[0] != 4 {
			t.Fatalf("key: %d %+v", res.StatusCode, r)
		}
		keys = append(keys, r.Key)
	}
	if keys[0] != keys[1] {
		t.Error("a second ask made another key")
	}
	info, err := os.Stat(vapid)
	if err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(vapid); string(now) != string(made) {
		t.Error("a GET rewrote vapid.json")
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("vapid.json mode %v", info.Mode().Perm())
	}

	off := newEnv(t, envOpts{})
	if code, body := off.do(t, http.MethodGet, "/agents-notch/push/key", "", nil); code != 404 || !strings.Contains(body["error"].(string), "sends no pushes") {
		t.Errorf("without Web Push: %d %v", code, body)
	}
	if code, _ := off.do(t, http.MethodPost, "/agents-notch/push/subscribe", `{}`, nil); code != 404 {
		t.Errorf("subscribe without Web Push: %d", code)
	}
}

// A browser's subscription is checked strictly and stored (0600); a bad one
// is refused with its reason and stores nothing; unsubscribe forgets it.
func TestPushSubscribeRoute(t *testing.T) {
	e := newEnv(t, envOpts{webPush: &push.WebPushOptions{}})
	b := pushtest.NewBrowser(t, "b")
	file := filepath.Join(e.home, "state", "agents-notch", push.SubscriptionsFile)
	good := string(b.SubscriptionJSON("https://fcm.googleapis.com/fcm/send/SECRET-abc"))
	for _, tc := range []struct {
		name, body string
		want       int
		reason     string
	}{
		{"http endpoint", string(b.SubscriptionJSON("http://push.example/x")), 400, "https"},
		{"loopback http (tests only)", string(b.SubscriptionJSON("http://127.0.0.1:9/x")), 400, "https"},
		{"unknown field", strings.Replace(good, `"endpoint"`, `"extra":1,"endpoint"`, 1), 400, "unknown field"},
		{"short auth", strings.Replace(good, `"auth":"`, `"auth":"AA`, 1), 400, "keys.auth"},
		{"bad point", `{"endpoint":"https://p.example/x","keys":{"p256dh":"` + strings.Repeat("A", 87) + `","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}`, 400, "p256dh"},
		{"two objects", good + good, 400, "trailing"},
		{"too large", `{"endpoint":"https://p.example/` + strings.Repeat("a", smallBodyLimit) + `"}`, 413, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := postRaw(t, e, "/agents-notch/push/subscribe", tc.body, nil)
			if code != tc.want || !strings.Contains(body, tc.reason) {
				t.Errorf("%d %s, want %d with %q", code, body, tc.want, tc.reason)
			}
			if _, err := os.Stat(file); err == nil {
				t.Error("a refused subscription was stored")
			}
		})
	}
	if code, body := postRaw(t, e, "/agents-notch/push/subscribe", good, nil); code != 200 || body != `{"ok":true}`+"\n" {
		t.Fatalf("subscribe: %d %s", code, body)
	}
	subs, _ := e.srv.WebPush.Subscriptions()
	if len(subs) != 1 || subs[0].Endpoint != "https://fcm.googleapis.com/fcm/send/SECRET-abc" || subs[0].Device != "" {
		t.Fatalf("stored %+v", subs)
	}
	if info, err := os.Stat(file); err != nil || (runtime.GOOS != "windows" && info.Mode().Perm() != 0o600) {
		t.Errorf("push-subscriptions.json: %v %v", info, err)
	}
	if code, _ := postRaw(t, e, "/agents-notch/push/subscribe", good, map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}); code != 403 {
		t.Errorf("another site's page subscribing: %d, want 403", code)
	}
	if code, body := postRaw(t, e, "/agents-notch/push/unsubscribe", `{"endpoint":"https://fcm.googleapis.com/fcm/send/SECRET-abc"}`, nil); code != 200 {
		t.Fatalf("unsubscribe: %d %s", code, body)
	}
	if subs, _ := e.srv.WebPush.Subscriptions(); len(subs) != 0 {
		t.Errorf("left %+v", subs)
	}
	if code, _ := postRaw(t, e, "/agents-notch/push/unsubscribe", `{"endpoint":"nope"}`, nil); code != 400 {
		t.Errorf("unsubscribe of a non-URL: %d", code)
	}
}

// showOf decodes a push as the service worker reads it.
type swShow struct {
	Type, Tag, Kind, Title, Body, URL string
	Actions                           []struct{ Action, Title, URL, Cap string }
}

// Web Push end to end on loopback, real crypto on both sides: a browser
// subscribes through the route; a permission card nobody answers reaches
// the stand-in push service after the delay, signed and encrypted for that
// browser, with its Allow once / Deny; Allow once (what the service worker
// posts) answers the held hook, and the close for its tag follows. The
// next card, answered in the terminal, is closed too.
func TestWebPushEndToEnd(t *testing.T) {
	ps := pushtest.NewService(t)
	const delay = 200 * time.Millisecond
	e := newEnv(t, envOpts{run: true,
		webPush: &push.WebPushOptions{Client: ps.Server.Client()},
		push: &push.Options{Config: push.Config{Delay: delay},
			BoardURL: "https://laptop.example/agents-notch/", ActURL: "https://laptop.example/agents-notch/act"},
	})
	rec := recordAnswers(e)
	b, endpoint := ps.Browser("phone")
	if code, body := postRaw(t, e, "/agents-notch/push/subscribe", string(b.SubscriptionJSON(endpoint)), nil); code != 200 {
		t.Fatalf("subscribe: %d %s", code, body)
	}
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	bash := `,"tool_name":"Bash","tool_input":{"command":"rm -rf build"}`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"t1"`), nil)
	asked := time.Now()
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))

	got := ps.Wait("the needs-you push", func(r []pushtest.Received) bool { return len(r) >= 1 })
	t.Logf("needs-you reached the push service %v after the ask (delay %v)", time.Since(asked).Round(time.Millisecond), delay)
	var m swShow
	if err := json.Unmarshal(got[0].Payload, &m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "show" || m.Kind != push.KindNeedsYou || m.Tag == "" || !strings.Contains(m.Title, "argon") || m.Body != "Bash: rm -rf build" ||
		m.URL != "https://laptop.example/agents-notch/" || len(m.Actions) != 2 || got[0].Header.Get("Urgency") != "high" {
		t.Fatalf("the push: %+v %v", m, got[0].Header)
	}
	allow := m.Actions[0]
	if allow.Action != "allow" || allow.Title != "Allow once" || allow.URL != "https://laptop.example/agents-notch/act" || allow.Cap == "" {
		t.Fatalf("Allow once: %+v", allow)
	}
	// What the service worker posts for the button.
	if code, body := postRaw(t, e, "/agents-notch/act", `{"cap":"`+allow.Cap+`"}`, nil); code != 200 || !strings.Contains(body, `"outcome":"allowed"`) {
		t.Fatalf("Allow once from the notification: %d %s", code, body)
	}
	select {
	case r := <-reply:
		if r[0] != "200 OK" || !strings.Contains(r[1], `"behavior":"allow"`) {
			t.Fatalf("the held hook got %v", r)
		}
	case <-time.After(waitfor.Patience):
		t.Fatal("the held hook never got the notification's answer")
	}
	// This computer's browser subscribed and pressed it: no device.
	if a := rec.answered(t, 1); a.By != host.ByPush || a.Device != "" {
		t.Fatalf("recorded %+v, want by push with no device", a)
	}
	closed := ps.Wait("the close", func(r []pushtest.Received) bool { return len(r) >= 1 })
	if string(closed[0].Payload) != `{"type":"close","tag":"`+m.Tag+`"}` || closed[0].Header.Get("Topic") != got[0].Header.Get("Topic") {
		t.Fatalf("the close: %s %v", closed[0].Payload, closed[0].Header)
	}

	// The next ask is answered in the terminal after its push.
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PostToolUse", bash+`,"tool_use_id":"t1","tool_response":{}`), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"t2"`), nil)
	reply = heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))
	got = ps.Wait("the second push", func(r []pushtest.Received) bool { return len(r) >= 1 })
	var m2 swShow
	json.Unmarshal(got[0].Payload, &m2)
	if m2.Type != "show" || len(m2.Actions) != 2 {
		t.Fatalf("the second push: %s", got[0].Payload)
	}
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PostToolUse", bash+`,"tool_use_id":"t2","tool_response":{}`), nil)
	<-reply
	ps.Wait("the close after the terminal answered", func(r []pushtest.Received) bool {
		return len(r) >= 1 && string(r[len(r)-1].Payload) == `{"type":"close","tag":"`+m2.Tag+`"}`
	})
	if code, _ := postRaw(t, e, "/agents-notch/act", `{"cap":"`+m2.Actions[0].Cap+`"}`, nil); code != 409 {
		t.Errorf("a button after the terminal answered: %d, want 409", code)
	}
}

// A paired phone's subscription carries its device; the push's buttons
// are that device's (another device's request is 403, the phone's
// answers); revoking the phone drops its subscription at once.
func TestWebPushPairedDevice(t *testing.T) {
	ps := pushtest.NewService(t)
	e := newEnv(t, envOpts{run: true, allowHosts: []string{"phone.example"},
		webPush: &push.WebPushOptions{Client: ps.Server.Client()},
		push: &push.Options{Config: push.Config{Delay: 100 * time.Millisecond},
			BoardURL: "https://phone.example/agents-notch/", ActURL: "https://phone.example/agents-notch/act"},
	})
	rec := recordAnswers(e)
	devs := e.srv.Locks.Devices()
	pair := func(name string) (string, string) {
		p, err := devs.NewPairing(name)
		if err != nil {
			t.Fatal(err)
		}
		d, cookie, err := devs.Redeem(p.Code)
		if err != nil {
			t.Fatal(err)
		}
		return d.ID, cookie
	}
	phoneID, phoneCookie := pair("phone")
	_, tabletCookie := pair("tablet")
	from := func(cookie string) map[string]string {
		return map[string]string{"Host": "phone.example", "Cookie": "notch_device=" + cookie}
	}
	b, endpoint := ps.Browser("phone")
	sub := string(b.SubscriptionJSON(endpoint))
	if code, _ := e.do(t, http.MethodPost, "/agents-notch/push/subscribe", sub, map[string]string{"Host": "phone.example"}); code != 401 {
		t.Fatalf("an unpaired phone subscribing: %d, want 401", code)
	}
	if code, body := e.do(t, http.MethodPost, "/agents-notch/push/subscribe", sub, from(phoneCookie)); code != 200 {
		t.Fatalf("the paired phone subscribing: %d %v", code, body)
	}
	subs, _ := e.srv.WebPush.Subscriptions()
	if len(subs) != 1 || subs[0].Device != phoneID {
		t.Fatalf("stored %+v, want the phone's device %s", subs, phoneID)
	}

	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	bash := `,"tool_name":"Bash","tool_input":{"command":"rm -rf build"}`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"t1"`), nil)
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))
	got := ps.Wait("the needs-you push", func(r []pushtest.Received) bool { return len(r) >= 1 })
	var m swShow
	json.Unmarshal(got[0].Payload, &m)
	if len(m.Actions) != 2 {
		t.Fatalf("the push: %s", got[0].Payload)
	}
	deny := `{"cap":"` + m.Actions[1].Cap + `"}`
	if code, _ := e.do(t, http.MethodPost, "/agents-notch/act", deny, from(tabletCookie)); code != 403 {
		t.Errorf("another device pressing the phone's Deny: %d, want 403", code)
	}
	if code, body := e.do(t, http.MethodPost, "/agents-notch/act", deny, from(phoneCookie)); code != 200 {
		t.Fatalf("the phone's Deny: %d %v", code, body)
	}
	if r := <-reply; !strings.Contains(r[1], `"behavior":"deny"`) {
		t.Fatalf("the held hook got %v", r)
	}
	// The history keeps the phone, by its name.
	if a := rec.answered(t, 1); a.By != host.ByPush || a.Device != "phone" || a.Outcome != host.OutcomeDenied {
		t.Fatalf("recorded %+v, want denied by push on phone", a)
	}

	if code, body := postRaw(t, e, "/agents-notch/devices/revoke", `{"device":"phone"}`, nil); code != 200 {
		t.Fatalf("revoke: %d %s", code, body)
	}
	if subs, _ := e.srv.WebPush.Subscriptions(); len(subs) != 0 {
		t.Errorf("the revoked phone's subscription stayed: %+v", subs)
	}
}
