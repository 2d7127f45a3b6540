package push

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A valid browser key and secret for the tables.
var (
	testKey  = mustKey()
	testP256 = b64.EncodeToString(testKey.PublicKey().Bytes())
	testAuth = b64.EncodeToString([]byte("0123456789abcdef"))
)

func mustKey() *ecdh.PrivateKey {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

func subJSON(endpoint, p256dh, auth string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`{"endpoint": %s, "expirationTime": null, "keys": {"p256dh": %s, "auth": %s}}`, q(endpoint), q(p256dh), q(auth))
}

func TestParseSubscription(t *testing.T) {
	// A point that is 65 bytes and starts 0x04 but is not on the curve.
	offCurve := make([]byte, 65)
	offCurve[0], offCurve[64] = 4, 1
	compressed := testKey.PublicKey().Bytes()[:33]
	compressed[0] = 2
	padded := base64.URLEncoding.EncodeToString(testKey.PublicKey().Bytes())
	for _, tc := range []struct {
		name, body, want string // want: "" for accepted, else part of the error
	}{
		{"chrome", subJSON("https://fcm.googleapis.com/fcm/send/abc:APA91b", testP256, testAuth), ""},
		{"firefox", subJSON("https://updates.push.services.mozilla.com/wpush/v2/gAAAAA", testP256, testAuth), ""},
		{"padded keys", subJSON("https://web.push.apple.com/QGuQ", padded, testAuth+"=="), ""},
		{"no expirationTime", `{"endpoint": "https://p.example/x", "keys": {"p256dh": "` + testP256 + `", "auth": "` + testAuth + `"}}`, ""},
		{"expirationTime number", `{"endpoint": "https://p.example/x", "expirationTime": 1767225600000, "keys": {"p256dh": "` + testP256 + `", "auth": "` + testAuth + `"}}`, ""},
		{"loopback http", subJSON("http://127.0.0.1:8080/push/x", testP256, testAuth), ""},
		{"localhost http", subJSON("http://localhost:8080/push/x", testP256, testAuth), ""},
		{"ipv6 loopback http", subJSON("http://[::1]:8080/push/x", testP256, testAuth), ""},

		{"empty", ``, "truncated"},
		{"array", `[]`, "got a JSON array"},
		{"unknown field", `{"endpoint": "https://p.example/x", "keys": {"p256dh": "` + testP256 + `", "auth": "` + testAuth + `"}, "extra": 1}`, "unknown field"},
		{"unknown key field", `{"endpoint": "https://p.example/x", "keys": {"p256dh": "` + testP256 + `", "auth": "` + testAuth + `", "x": ""}}`, "unknown field"},
		{"trailing", subJSON("https://p.example/x", testP256, testAuth) + `{}`, "trailing"},
		{"no endpoint", subJSON("", testP256, testAuth), "endpoint is missing"},
		{"http elsewhere", subJSON("http://push.example/x", testP256, testAuth), "must be https"},
		{"http to a private address", subJSON("http://192.168.1.1/x", testP256, testAuth), "must be https"},
		{"javascript", subJSON("javascript:alert(1)", testP256, testAuth), "absolute URL"},
		{"file", subJSON("file:///etc/passwd", testP256, testAuth), "absolute URL"},
		{"relative", subJSON("/push/x", testP256, testAuth), "absolute URL"},
		{"user info", subJSON("https://u:p@push.example/x", testP256, testAuth), "user information"},
		{"fragment", subJSON("https://push.example/x#f", testP256, testAuth), "fragment"},
		{"control char", subJSON("https://push.example/x\u0007", testP256, testAuth), "not a URL"},
		{"space", subJSON("https://push.example/a b", testP256, testAuth), "not a URL"},
		{"too long", subJSON("https://push.example/"+strings.Repeat("a", MaxEndpoint), testP256, testAuth), "longer than"},
		{"no p256dh", subJSON("https://p.example/x", "", testAuth), "p256dh"},
		{"p256dh not base64", subJSON("https://p.example/x", "!!!!", testAuth), "p256dh"},
		{"p256dh compressed", subJSON("https://p.example/x", b64.EncodeToString(compressed), testAuth), "65-byte"},
		{"p256dh off the curve", subJSON("https://p.example/x", b64.EncodeToString(offCurve), testAuth), "not a point"},
		{"auth short", subJSON("https://p.example/x", testP256, b64.EncodeToString([]byte("short"))), "16-byte"},
		{"auth long", subJSON("https://p.example/x", testP256, b64.EncodeToString(make([]byte, 32))), "16-byte"},
		{"endpoint twice", `{"endpoint": "https://a.example/x", "endpoint": "https://b.example/x", "keys": {"p256dh": "` + testP256 + `", "auth": "` + testAuth + `"}}`, "twice"},
		{"keys a string", `{"endpoint": "https://p.example/x", "keys": "k"}`, "keys is a JSON string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSubscription([]byte(tc.body))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err %v, want %q", err, tc.want)
			case tc.want == "":
				if s.ID != subscriptionID(s.Endpoint) || strings.Contains(s.P256dh, "=") || strings.Contains(s.Auth, "=") {
					t.Errorf("parsed %+v", s)
				}
			}
		})
	}
}

func TestParseEndpoint(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"endpoint": "https://p.example/x"}`, ""},
		{`{"endpoint": "http://p.example/x"}`, "https"},
		{`{"endpoint": "https://p.example/x", "keys": {}}`, "unknown field"},
		{`{}`, "missing"},
		{`{"endpoint": 1}`, "endpoint is a JSON number"},
	} {
		_, err := ParseEndpoint([]byte(tc.body))
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
	}
}

func TestParseSubscriptionsFile(t *testing.T) {
	ep := "https://p.example/x"
	entry := func(id, endpoint, p, a, device, created string) string {
		return fmt.Sprintf(`{"id": %q, "endpoint": %q, "p256dh": %q, "auth": %q, "device": %q, "created": %q}`, id, endpoint, p, a, device, created)
	}
	good := entry(subscriptionID(ep), ep, testP256, testAuth, "dev", "2026-12-03T10:00:00Z")
	other := entry(subscriptionID(ep+"2"), ep+"2", testP256, testAuth, "", "2026-12-03T10:00:00Z")
	file := func(entries ...string) string { return `{"subscriptions": [` + strings.Join(entries, ",") + `]}` }
	for _, tc := range []struct{ name, body, want string }{
		{"empty list", `{"subscriptions": []}`, ""},
		{"two", file(good, other), ""},
		{"no list", `{}`, "missing"},
		{"null list", `{"subscriptions": null}`, "missing"},
		{"unknown field", `{"subscriptions": [], "v": 1}`, "unknown field"},
		{"entry unknown field", file(strings.TrimSuffix(good, "}") + `, "x": 1}`), "unknown field"},
		{"wrong id", file(entry("s-00", ep, testP256, testAuth, "", "2026-12-03T10:00:00Z")), "subscription 1: id"},
		{"padded key", file(entry(subscriptionID(ep), ep, testP256+"=", testAuth, "", "2026-12-03T10:00:00Z")), "p256dh"},
		{"bad auth", file(entry(subscriptionID(ep), ep, testP256, "AAAA", "", "2026-12-03T10:00:00Z")), "auth"},
		{"http", file(entry(subscriptionID("http://p.example/x"), "http://p.example/x", testP256, testAuth, "", "2026-12-03T10:00:00Z")), "https"},
		{"hidden device", file(entry(subscriptionID(ep), ep, testP256, testAuth, "a\u202eb", "2026-12-03T10:00:00Z")), "device"},
		{"no created", file(entry(subscriptionID(ep), ep, testP256, testAuth, "", "0001-01-01T00:00:00Z")), "created"},
		{"bad created", file(entry(subscriptionID(ep), ep, testP256, testAuth, "", "yesterday")), "cannot parse"},
		{"twice", file(good, good), "subscription 2: the same endpoint twice"},
		{"too many", file(good, other, entry(subscriptionID(ep+"3"), ep+"3", testP256, testAuth, "", "2026-12-03T10:00:00Z")), "more than 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSubscriptions([]byte(tc.body), 2)
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
	// What the channel writes, it reads back.
	subs := []Subscription{{ID: subscriptionID(ep), Endpoint: ep, P256dh: testP256, Auth: testAuth, Device: "d", Created: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)}}
	data, _ := marshalSubscriptions(subs)
	if back, err := parseSubscriptions(data, 2); err != nil || len(back) != 1 || back[0] != subs[0] {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestParseVAPID(t *testing.T) {
	keys, data, err := makeVAPID(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if back, err := parseVAPID(data); err != nil || back != keys {
		t.Fatalf("round trip: %v", err)
	}
	other := b64.EncodeToString(mustKey().PublicKey().Bytes())
	priv := keys.private
	for _, tc := range []struct{ name, body, want string }{
		{"not json", `vapid`, "invalid character"},
		{"unknown field", `{"publicKey": "` + keys.public + `", "privateKey": "` + priv + `", "created": "2026-12-03T10:00:00Z", "x": 1}`, "unknown field"},
		{"no private", `{"publicKey": "` + keys.public + `", "created": "2026-12-03T10:00:00Z"}`, "privateKey"},
		{"short private", `{"publicKey": "` + keys.public + `", "privateKey": "AAAA", "created": "2026-12-03T10:00:00Z"}`, "privateKey"},
		{"zero private", `{"publicKey": "` + keys.public + `", "privateKey": "` + b64.EncodeToString(make([]byte, 32)) + `", "created": "2026-12-03T10:00:00Z"}`, "not a P-256 key"},
		{"another public", `{"publicKey": "` + other + `", "privateKey": "` + priv + `", "created": "2026-12-03T10:00:00Z"}`, "not privateKey's"},
		{"no created", `{"publicKey": "` + keys.public + `", "privateKey": "` + priv + `"}`, "created"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseVAPID([]byte(tc.body)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 0, ""},
		{"abc", 1, "a…"},
		{"abc", 3, "abc"},
		{"abc", 9, "abc"},
		{"日本語", 2, "日本…"},
	} {
		if got := cut(tc.s, tc.n); got != tc.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
