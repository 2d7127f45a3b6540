package push

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Every parser of outside input here never panics, and what it accepts
// keeps its promises. Run one with: go test -fuzz FuzzParseSubscription ./host/push

// A browser's subscription (POST /agents-notch/push/subscribe): accepted
// means an https (or loopback http) endpoint, a 65-byte point and a 16-byte
// secret, unpadded, and an id that is the endpoint's.
func FuzzParseSubscription(f *testing.F) {
	f.Add([]byte(subJSON("https://fcm.googleapis.com/fcm/send/abc", testP256, testAuth)))          // Chrome's
	f.Add([]byte(subJSON("http://127.0.0.1:9/push", testP256, testAuth+"==")))                     // loopback, padded auth
	f.Add([]byte(subJSON("https://u@p.example/#x", testP256, testAuth)))                           // user info, fragment
	f.Add([]byte(`{"endpoint": "https://p.example/x", "keys": {"p256dh": "BA", "auth": "AAAA"}}`)) // short keys
	f.Add([]byte(`{"endpoint": "https://p.example/x", "keys": null}`))                             // keys null
	f.Add([]byte(`{"endpoint": "https://p.example/x"}{}`))                                         // trailing
	f.Add([]byte("\xff\xfe"))                                                                      // not text
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := ParseSubscription(body)
		if err != nil {
			return
		}
		if checkEndpoint(s.Endpoint) != nil || len(s.Endpoint) > MaxEndpoint {
			t.Errorf("accepted endpoint %q", s.Endpoint)
		}
		if p, err := checkP256dh(s.P256dh); err != nil || p != s.P256dh {
			t.Errorf("accepted p256dh %q", s.P256dh)
		}
		if a, err := checkAuth(s.Auth); err != nil || a != s.Auth {
			t.Errorf("accepted auth %q", s.Auth)
		}
		if s.ID != subscriptionID(s.Endpoint) {
			t.Error("id is not the endpoint's")
		}
	})
}

// An unsubscribe's body.
func FuzzParseEndpoint(f *testing.F) {
	f.Add([]byte(`{"endpoint": "https://p.example/x"}`)) // plain
	f.Add([]byte(`{"endpoint": "ftp://p.example/x"}`))   // another scheme
	f.Add([]byte(`{"endpoint": ""}`))                    // empty
	f.Fuzz(func(t *testing.T, body []byte) {
		if e, err := ParseEndpoint(body); err == nil && checkEndpoint(e) != nil {
			t.Errorf("accepted %q", e)
		}
	})
}

// push-subscriptions.json: what is accepted is what the channel would
// write, within the bound.
func FuzzParseSubscriptionsFile(f *testing.F) {
	ep := "https://p.example/x"
	good := `{"id": "` + subscriptionID(ep) + `", "endpoint": "` + ep + `", "p256dh": "` + testP256 + `", "auth": "` + testAuth + `", "device": "", "created": "2026-12-03T10:00:00Z"}`
	f.Add([]byte(`{"subscriptions": []}`))                             // none
	f.Add([]byte(`{"subscriptions": [` + good + `]}`))                 // one
	f.Add([]byte(`{"subscriptions": [` + good + `,` + good + `]}`))    // twice
	f.Add([]byte(`{"subscriptions": [{"id": "s-0", "endpoint": 1}]}`)) // wrong kinds
	f.Fuzz(func(t *testing.T, data []byte) {
		subs, err := parseSubscriptions(data, 4)
		if err != nil {
			return
		}
		if len(subs) > 4 {
			t.Errorf("%d subscriptions over the bound", len(subs))
		}
		again, err := marshalSubscriptions(subs)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseSubscriptions(again, 4); err != nil {
			t.Errorf("what it accepted does not read back: %v", err)
		}
	})
}

// vapid.json: an accepted pair is a matching pair.
func FuzzParseVAPID(f *testing.F) {
	_, data, _ := makeVAPID(time.Now())
	f.Add(data)                                                           // a real one
	f.Add([]byte(`{"publicKey": "", "privateKey": "", "created": null}`)) // empty keys
	f.Add([]byte(`{}`))                                                   // nothing
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := parseVAPID(data)
		if err != nil {
			return
		}
		if len(k.public) != 87 || len(k.private) != 43 {
			t.Errorf("accepted keys of %d and %d characters", len(k.public), len(k.private))
		}
	})
}

// A message's text from anywhere (titles, bodies of any size and bytes)
// becomes the show payload's exact shape within MaxPayload, its text
// valid UTF-8 with nothing hidden — or, only when the fixed fields are
// over the bound, ErrPayloadTooLarge.
func FuzzMarshalShow(f *testing.F) {
	f.Add("mac · proj · claude — title", "Bash: rm -rf /", "row-1", 1)                       // a needs-you
	f.Add(`"},"type":"close`, strings.Repeat("<b>", 2000), "t", 2)                           // JSON and markup
	f.Add("\x1b[31m\u202eevil", "\xff\xfe\x00", "t", 0)                                      // control, bidi, bad UTF-8
	f.Add(strings.Repeat("🙂", 3000), strings.Repeat("\\", 3000), strings.Repeat("t", 20), 2) // big
	f.Fuzz(func(t *testing.T, title, body, tag string, nActions int) {
		var actions []Action
		for i := range nActions % 3 {
			actions = append(actions, Action{ID: "allow", Label: title, URL: "https://b.example/agents-notch/act", Cap: strings.Repeat("c", 40+i)})
		}
		b, err := marshalShow(Message{Tag: tag, Kind: KindNeedsYou, Title: title, Body: body}, actions)
		if err != nil {
			if len(tag)+len(actions)*len(title)*6 < MaxPayload/2 {
				t.Errorf("refused a message whose fixed part is small: %v", err)
			}
			return
		}
		if len(b) > MaxPayload {
			t.Fatalf("%d bytes", len(b))
		}
		var p showPayload
		if err := json.Unmarshal(b, &p); err != nil || p.Type != "show" || len(p.Actions) != len(actions) {
			t.Fatalf("not the show shape: %v %s", err, b)
		}
		for _, s := range []string{p.Title, p.Body} {
			if !utf8.ValidString(s) || strings.ContainsAny(s, "\x00\x1b\u202e") {
				t.Errorf("text %q", s)
			}
		}
	})
}
