package push

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

// The stand-in push service: what a browser's push service does with a
// message, checked with the standard library alone (not the library that
// sent it) — the VAPID JWT's ES256 signature against its k= key, its
// claims, and the RFC 8291 decryption with the subscriber's private key.

// testBrowser is one subscribed browser: its ECDH key pair and auth
// secret, as a browser's PushManager keeps them.
type testBrowser struct {
	name string
	priv *ecdh.PrivateKey
	auth []byte
}

func newTestBrowser(t testing.TB, name string) *testBrowser {
	t.Helper()
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	return &testBrowser{name: name, priv: priv, auth: auth}
}

// subscriptionJSON is what the browser's PushSubscription.toJSON() says.
func (b *testBrowser) subscriptionJSON(endpoint string) []byte {
	j, _ := json.Marshal(map[string]any{
		"endpoint": endpoint, "expirationTime": nil,
		"keys": map[string]string{"p256dh": b64.EncodeToString(b.priv.PublicKey().Bytes()), "auth": b64.EncodeToString(b.auth)},
	})
	return j
}

// received is one message the stand-in took, decrypted.
type received struct {
	browser string
	payload []byte
	header  http.Header
	claims  vapidClaims
	vapidK  string
}

type vapidClaims struct {
	Aud string `json:"aud"`
	Exp int64  `json:"exp"`
	Sub string `json:"sub"`
}

// standin is a push service on a TLS httptest server: POST /push/NAME is
// browser NAME's endpoint. status[NAME], when set, is its answer instead
// of 201 (410: the subscription is gone).
type standin struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	browsers map[string]*testBrowser
	status   map[string]int
	got      []received
	bad      []string // what failed a check
}

func newStandin(t testing.TB) *standin {
	st := &standin{t: t, browsers: map[string]*testBrowser{}, status: map[string]int{}}
	st.srv = httptest.NewTLSServer(http.HandlerFunc(st.serve))
	t.Cleanup(st.srv.Close)
	return st
}

// browser adds a browser and returns its endpoint: a long secret path, as
// a real push service's is.
func (st *standin) browser(name string) (*testBrowser, string) {
	b := newTestBrowser(st.t, name)
	st.mu.Lock()
	st.browsers[name] = b
	st.mu.Unlock()
	return b, st.srv.URL + "/push/" + name + "/SECRET-" + name + "-0123456789abcdef"
}

func (st *standin) setStatus(name string, code int) {
	st.mu.Lock()
	st.status[name] = code
	st.mu.Unlock()
}

// messages returns what arrived so far and fails the test on any
// message that did not pass the checks.
func (st *standin) messages() []received {
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

func (st *standin) serve(w http.ResponseWriter, r *http.Request) {
	name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/push/"), "/")
	st.mu.Lock()
	b := st.browsers[name]
	code := st.status[name]
	st.mu.Unlock()
	fail := func(format string, args ...any) {
		st.mu.Lock()
		st.bad = append(st.bad, name+": "+fmt.Sprintf(format, args...))
		st.mu.Unlock()
		http.Error(w, "bad", http.StatusBadRequest)
	}
	if r.Method != http.MethodPost || b == nil {
		fail("%s %s", r.Method, r.URL.Path)
		return
	}
	if code != 0 {
		w.WriteHeader(code)
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
	claims, k, err := checkVAPID(r.Header.Get("Authorization"), "https://"+r.Host)
	if err != nil {
		fail("VAPID: %v", err)
		return
	}
	plain, err := decrypt(b, body)
	if err != nil {
		fail("decrypt: %v", err)
		return
	}
	st.mu.Lock()
	st.got = append(st.got, received{browser: name, payload: plain, header: r.Header.Clone(), claims: claims, vapidK: k})
	st.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
}

// checkVAPID verifies "vapid t=JWT, k=KEY" (RFC 8292 §3): an ES256 JWT
// signed by KEY's private half, aud the endpoint's origin, exp in the
// next 24 hours, sub a mailto: or https: contact.
func checkVAPID(h, origin string) (vapidClaims, string, error) {
	rest, ok := strings.CutPrefix(h, "vapid ")
	if !ok {
		return vapidClaims{}, "", fmt.Errorf("authorization %q is not vapid", h)
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
		return vapidClaims{}, "", fmt.Errorf("k: %v", err)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), kb)
	if err != nil {
		return vapidClaims{}, "", fmt.Errorf("k is not a P-256 point: %v", err)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return vapidClaims{}, "", errors.New("t is not a JWT")
	}
	var head struct{ Alg, Typ string }
	hb, _ := b64.DecodeString(parts[0])
	if err := json.Unmarshal(hb, &head); err != nil || head.Alg != "ES256" {
		return vapidClaims{}, "", fmt.Errorf("JWT header %s", hb)
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return vapidClaims{}, "", errors.New("the signature is not 64 bytes (r || s)")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(pub, digest[:], r, s) {
		return vapidClaims{}, "", errors.New("the JWT's signature does not verify against k")
	}
	var c vapidClaims
	cb, _ := b64.DecodeString(parts[1])
	if err := json.Unmarshal(cb, &c); err != nil {
		return vapidClaims{}, "", fmt.Errorf("claims %s", cb)
	}
	if c.Aud != origin {
		return vapidClaims{}, "", fmt.Errorf("aud %q, want %q", c.Aud, origin)
	}
	exp := time.Unix(c.Exp, 0)
	if now := time.Now(); !exp.After(now) || exp.After(now.Add(24*time.Hour)) {
		return vapidClaims{}, "", fmt.Errorf("exp %v is not within the next 24 h", exp)
	}
	if !strings.HasPrefix(c.Sub, "mailto:") && !strings.HasPrefix(c.Sub, "https:") {
		return vapidClaims{}, "", fmt.Errorf("sub %q", c.Sub)
	}
	return c, key, nil
}

// decrypt undoes RFC 8291's aes128gcm with the browser's private key: the
// header (salt, rs, the server's one-off public key), the ECDH secret,
// the two HKDF steps, AES-128-GCM, and the padding after the 0x02
// delimiter of the one (last) record.
func decrypt(b *testBrowser, body []byte) ([]byte, error) {
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
