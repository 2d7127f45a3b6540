package push

import (
	"bytes"
	"crypto/ecdh"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"

	"github.com/notch-web/notch-web/internal/jsonx"
)

// VAPIDFile is the name of the host's VAPID key pair in its folder
// ($DSH_HOME/state/agents-notch), mode 0600.
const VAPIDFile = "vapid.json"

// maxVAPIDFile bounds vapid.json: two keys and a time fit in 300 bytes.
const maxVAPIDFile = 4 << 10

// vapidFile is vapid.json: the host's VAPID key pair (RFC 8292), made on
// first use. A browser subscribes with the public key, and the push
// service then takes only messages signed with its private half: a new
// pair orphans every subscription made with the old one.
type vapidFile struct {
	PublicKey  string    `json:"publicKey"`  // the uncompressed P-256 point (65 bytes), base64url without padding
	PrivateKey string    `json:"privateKey"` // the 32-byte scalar, base64url without padding
	Created    time.Time `json:"created"`
}

// vapidKeys is a checked key pair, base64url as the library and the
// browser's applicationServerKey take them.
type vapidKeys struct {
	public, private string
}

var b64 = base64.RawURLEncoding

// parseVAPID reads vapid.json strictly: both keys present and well formed,
// the private scalar a valid P-256 key whose public point is the one
// stored (a file edited by hand, or two halves of different pairs, is
// refused rather than signing with a key no browser knows).
func parseVAPID(data []byte) (vapidKeys, error) {
	var f vapidFile
	if err := jsonx.DecodeOne(data, &f, jsonx.Options{Strict: true}); err != nil {
		return vapidKeys{}, errors.New(jsonx.Reason(err))
	}
	priv, err := b64.DecodeString(f.PrivateKey)
	if err != nil || len(priv) != 32 {
		return vapidKeys{}, errors.New("privateKey is not 32 bytes of base64url")
	}
	key, err := ecdh.P256().NewPrivateKey(priv)
	if err != nil {
		return vapidKeys{}, errors.New("privateKey is not a P-256 key")
	}
	pub, err := b64.DecodeString(f.PublicKey)
	if err != nil || len(pub) != 65 {
		return vapidKeys{}, errors.New("publicKey is not 65 bytes of base64url")
	}
	if !bytes.Equal(key.PublicKey().Bytes(), pub) {
		return vapidKeys{}, errors.New("publicKey is not privateKey's")
	}
	if f.Created.IsZero() {
		return vapidKeys{}, errors.New("created is missing")
	}
	return vapidKeys{public: f.PublicKey, private: f.PrivateKey}, nil
}

// makeVAPID makes a new key pair with the library and the file that holds it.
func makeVAPID(now time.Time) (vapidKeys, []byte, error) {
	priv, pub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		return vapidKeys{}, nil, fmt.Errorf("making a VAPID key: %w", err)
	}
	data, err := json.MarshalIndent(vapidFile{PublicKey: pub, PrivateKey: priv, Created: now.UTC()}, "", "  ")
	if err != nil {
		return vapidKeys{}, nil, err
	}
	data = append(data, '\n')
	keys, err := parseVAPID(data)
	if err != nil { // the library's key fails our own check: never store it
		return vapidKeys{}, nil, fmt.Errorf("making a VAPID key: %w", err)
	}
	return keys, data, nil
}
