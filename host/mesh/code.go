package mesh

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// codePrefix starts every join code, and names its version.
const codePrefix = "notch1_"

// maxCode bounds a join code's length before anything is decoded.
const maxCode = 1024

// CodeTTL is how long a join code may be used: once, within this time.
const CodeTTL = 10 * time.Minute

// ErrCode: text that is not a join code.
var ErrCode = errors.New("not a join code")

// Code is what a join code carries: where the hub is, the certificate it
// must present, and a one-time secret.
type Code struct {
	Addr        string // the hub's HOST:PORT
	Fingerprint string // SHA-256 of the hub's certificate, lower-case hex
	ID          string // names the secret in the hub's pairs file
	Secret      string // the one-time secret (only its hash is kept)
	Expires     time.Time
}

type codeJSON struct {
	A string `json:"a"`
	F string `json:"f"`
	I string `json:"i"`
	S string `json:"s"`
	E int64  `json:"e"`
}

// String is the one-line join code.
func (c Code) String() string {
	b, _ := json.Marshal(codeJSON{c.Addr, c.Fingerprint, c.ID, c.Secret, c.Expires.Unix()})
	return codePrefix + base64.RawURLEncoding.EncodeToString(b)
}

// ParseCode reads a join code. Its errors say what is wrong with it.
func ParseCode(s string) (Code, error) {
	s = strings.TrimSpace(s)
	if len(s) > maxCode {
		return Code{}, fmt.Errorf("%w: %d characters, longer than any join code", ErrCode, len(s))
	}
	rest, ok := strings.CutPrefix(s, codePrefix)
	if !ok {
		return Code{}, fmt.Errorf("%w: it should start with %q (notch-web pair prints one)", ErrCode, codePrefix)
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return Code{}, fmt.Errorf("%w: it was cut or changed (copy the whole line)", ErrCode)
	}
	var j codeJSON
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil || dec.More() {
		return Code{}, fmt.Errorf("%w: it was cut or changed (copy the whole line)", ErrCode)
	}
	c := Code{Addr: j.A, Fingerprint: j.F, ID: j.I, Secret: j.S, Expires: time.Unix(j.E, 0)}
	if err := c.check(); err != nil {
		return Code{}, fmt.Errorf("%w: %v", ErrCode, err)
	}
	return c, nil
}

func (c Code) check() error {
	host, port, err := net.SplitHostPort(c.Addr)
	if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
		return fmt.Errorf("the hub's address %q is not HOST:PORT", c.Addr)
	}
	if len(c.Fingerprint) != 2*sha256.Size || !isHex(c.Fingerprint) {
		return errors.New("the certificate fingerprint is not a SHA-256")
	}
	if !isToken(c.ID, 8, 32) || !isToken(c.Secret, 16, 64) {
		return errors.New("the secret is malformed")
	}
	if c.Expires.Unix() <= 0 {
		return errors.New("it has no expiry")
	}
	return nil
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// isToken is base64url text of a length in [lo, hi].
func isToken(s string, lo, hi int) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// randomToken is n random bytes as base64url.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashSecret is what the hub keeps of a secret.
func hashSecret(secret string) string {
	h := sha256.Sum256([]byte("notch-web pair v1\x00" + secret))
	return hex.EncodeToString(h[:])
}
