// Package pushtest is a stand-in Web Push service for tests: what a
// browser's push service does with a message, checked with the standard
// library alone (not the library that sent it) — the VAPID JWT's ES256
// signature against its k= key and its claims (RFC 8292), and the RFC 8291
// aes128gcm decryption with the subscribing browser's private key. A
// Browser is one subscriber: its key pair and auth secret.
package pushtest

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var b64 = base64.RawURLEncoding

// Browser is one subscribed browser: its ECDH key pair and auth secret,
// as a browser's PushManager keeps them.
type Browser struct {
	Name string
	priv *ecdh.PrivateKey
	auth []byte
}

// NewBrowser makes a browser's keys.
func NewBrowser(t testing.TB, name string) *Browser {
	t.Helper()
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	return &Browser{Name: name, priv: priv, auth: auth}
}

// SubscriptionJSON is what the browser's PushSubscription.toJSON() says.
func (b *Browser) SubscriptionJSON(endpoint string) []byte {
	j, _ := json.Marshal(map[string]any{
		"endpoint": endpoint, "expirationTime": nil,
		"keys": map[string]string{"p256dh": b64.EncodeToString(b.priv.PublicKey().Bytes()), "auth": b64.EncodeToString(b.auth)},
	})
	return j
}

// Received is one message the stand-in took, decrypted.
type Received struct {
	Browser  string      // the browser's name
	Payload  []byte      // the decrypted message
	Header   http.Header // TTL, Urgency, Topic, …
	Claims   Claims      // the VAPID JWT's, verified
	VAPIDKey string      // its k=
}

// Claims are a VAPID JWT's claims.
type Claims struct {
	Aud string `json:"aud"`
	Exp int64  `json:"exp"`
	Sub string `json:"sub"`
}

// Service is a push service on a TLS httptest server: POST /push/NAME/… is
// browser NAME's endpoint. A status set for NAME is its answer instead of
// 201 (410: the subscription is gone).
type Service struct {
	t testing.TB
	// Server serves the endpoints; its Client() trusts it.
	Server *httptest.Server

	mu       sync.Mutex
	browsers map[string]*Browser
	status   map[string]int
	got      []Received
	bad      []string // what failed a check
	wake     chan struct{}
}

// NewService starts a push service, closed when the test ends.
func NewService(t testing.TB) *Service {
	st := &Service{t: t, browsers: map[string]*Browser{}, status: map[string]int{}, wake: make(chan struct{}, 1)}
	st.Server = httptest.NewTLSServer(http.HandlerFunc(st.serve))
	t.Cleanup(st.Server.Close)
	return st
}

// Browser adds a browser and returns its endpoint: a long path with
// "SECRET" in it, as a real push service's is a capability (a test can
// look for it in a log).
func (st *Service) Browser(name string) (*Browser, string) {
	b := NewBrowser(st.t, name)
	st.mu.Lock()
	st.browsers[name] = b
	st.mu.Unlock()
	return b, st.Server.URL + "/push/" + name + "/SECRET-" + name + "-0123456789abcdef"
}

// ReplaceKeys gives browser name new keys (it lost its old ones): a
// message for the old ones no longer decrypts.
func (st *Service) ReplaceKeys(name string) {
	st.mu.Lock()
	st.browsers[name] = NewBrowser(st.t, name)
	st.mu.Unlock()
}

// SetStatus makes browser name's endpoint answer code.
func (st *Service) SetStatus(name string, code int) {
	st.mu.Lock()
	st.status[name] = code
	st.mu.Unlock()
}

// Messages returns what arrived since the last call and fails the test on
// any message that did not pass the checks.
func (st *Service) Messages() []Received {
	st.t.Helper()
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, b := range st.bad {
		st.t.Error("push service: " + b)
	}
	st.bad = nil
	got := st.got
	st.got = nil
	return got
}

// Failures returns (and forgets) what failed a check so far.
func (st *Service) Failures() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	bad := st.bad
	st.bad, st.got = nil, nil
	return bad
}

// Wait returns the messages that arrived until cond holds of them (all of
// them since the last Messages), failing the test after 10 s.
func (st *Service) Wait(what string, cond func([]Received) bool) []Received {
	st.t.Helper()
	deadline := time.After(10 * time.Second)
	var got []Received
	for {
		got = append(got, st.Messages()...)
		if cond(got) {
			return got
		}
		select {
		case <-st.wake:
		case <-deadline:
			st.t.Fatalf("the push service never got %s: %d messages", what, len(got))
			return nil
		}
	}
}

func (st *Service) serve(w http.ResponseWriter, r *http.Request) {
	name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/push/"), "/")
	st.mu.Lock()
	b := st.browsers[name]
	code := st.status[name]
	st.mu.Unlock()
	fail := func(format string, args ...any) {
		st.mu.Lock()
		st.bad = append(st.bad, name+": "+fmt.Sprintf(format, args...))
		st.mu.Unlock()
		st.poke()
		http.Error(w, "bad", http.StatusBadRequest)
	}
	if r.Method != http.MethodPost || b == nil {
		fail("%s %s", r.Method, r.URL.Path)
		return
	}
	if code != 0 {
		w.WriteHeader(code)
		st.poke()
		return
	}
	body, _ := io.ReadAll(r.Body)
	if len(body) > 4096 {
		fail("a body of %d bytes, over the 4096 every push service takes", len(body))
		return
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "aes128gcm" {
		fail("Content-Encoding %q", ce)
		return
	}
	if ttl, err := strconv.Atoi(r.Header.Get("TTL")); err != nil || ttl <= 0 {
		fail("TTL %q", r.Header.Get("TTL"))
		return
	}
	claims, k, err := CheckVAPID(r.Header.Get("Authorization"), "https://"+r.Host)
	if err != nil {
		fail("VAPID: %v", err)
		return
	}
	plain, err := Decrypt(b, body)
	if err != nil {
		fail("decrypt: %v", err)
		return
	}
	st.mu.Lock()
	st.got = append(st.got, Received{Browser: name, Payload: plain, Header: r.Header.Clone(), Claims: claims, VAPIDKey: k})
	st.mu.Unlock()
	st.poke()
	w.WriteHeader(http.StatusCreated)
}

func (st *Service) poke() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// CheckVAPID verifies "vapid t=JWT, k=KEY" (RFC 8292 §3): an ES256 JWT
// signed by KEY's private half, aud the endpoint's origin, exp in the
// next 24 hours, sub a mailto: or https: contact.
func CheckVAPID(h, origin string) (Claims, string, error) {
	rest, ok := strings.CutPrefix(h, "vapid ")
	if !ok {
		return Claims{}, "", fmt.Errorf("authorization %q is not vapid", h)
	}
	var token, key string
	for _, p := range strings.Split(rest, ",") {
		p = strings.TrimSpace(p)
		if v, ok := strings.CutPrefix(p, "t="); ok {
			token = v
		} else if v, ok := strings.CutPrefix(p, "k="); ok {
			key = v
		}
	}
	kb, err := b64.DecodeString(key)
	if err != nil {
		return Claims{}, "", fmt.Errorf("k: %v", err)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), kb)
	if err != nil {
		return Claims{}, "", fmt.Errorf("k is not a P-256 point: %v", err)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return Claims{}, "", errors.New("t is not a JWT")
	}
	var head struct{ Alg, Typ string }
	hb, _ := b64.DecodeString(parts[0])
	if err := json.Unmarshal(hb, &head); err != nil || head.Alg != "ES256" {
		return Claims{}, "", fmt.Errorf("JWT header %s", hb)
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return Claims{}, "", errors.New("the signature is not 64 bytes (r || s)")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(pub, digest[:], r, s) {
		return Claims{}, "", errors.New("the JWT's signature does not verify against k")
	}
	var c Claims
	cb, _ := b64.DecodeString(parts[1])
	if err := json.Unmarshal(cb, &c); err != nil {
		return Claims{}, "", fmt.Errorf("claims %s", cb)
	}
	if c.Aud != origin {
		return Claims{}, "", fmt.Errorf("aud %q, want %q", c.Aud, origin)
	}
	exp := time.Unix(c.Exp, 0)
	if now := time.Now(); !exp.After(now) || exp.After(now.Add(24*time.Hour)) {
		return Claims{}, "", fmt.Errorf("exp %v is not within the next 24 h", exp)
	}
	if !strings.HasPrefix(c.Sub, "mailto:") && !strings.HasPrefix(c.Sub, "https:") {
		return Claims{}, "", fmt.Errorf("sub %q", c.Sub)
	}
	return c, key, nil
}

// Decrypt undoes RFC 8291's aes128gcm with the browser's private key: the
// header (salt, rs, the server's one-off public key), the ECDH secret,
// the two HKDF steps, AES-128-GCM, and the padding after the 0x02
// delimiter of the one (last) record.
func Decrypt(b *Browser, body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("no header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || len(body) < 21+idlen {
		return nil, fmt.Errorf("keyid of %d bytes", idlen)
	}
	asPub, err := ecdh.P256().NewPublicKey(body[21 : 21+idlen])
	if err != nil {
		return nil, err
	}
	ct := body[21+idlen:]
	if uint32(len(ct)) > rs {
		return nil, fmt.Errorf("a record of %d bytes, over rs %d (one record expected)", len(ct), rs)
	}
	secret, err := b.priv.ECDH(asPub)
	if err != nil {
		return nil, err
	}
	info := append(append([]byte("WebPush: info\x00"), b.priv.PublicKey().Bytes()...), asPub.Bytes()...)
	prkKey, _ := hkdf.Extract(sha256.New, secret, b.auth)
	ikm, _ := hkdf.Expand(sha256.New, prkKey, string(info), 32)
	prk, _ := hkdf.Extract(sha256.New, ikm, salt)
	cek, _ := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	nonce, _ := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	block, _ := aes.NewCipher(cek)
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, nonce, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("AES-GCM: %v", err)
	}
	plain = bytes.TrimRight(plain, "\x00")
	if len(plain) == 0 || plain[len(plain)-1] != 0x02 {
		return nil, errors.New("no last-record delimiter 0x02")
	}
	return plain[:len(plain)-1], nil
}
