package mesh

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// hubCert loads the hub's certificate: certFile/keyFile when given (the
// user's own), else the self-signed one in dir, made on first use.
func hubCert(dir, certFile, keyFile string) (tls.Certificate, error) {
	if certFile != "" || keyFile != "" {
		c, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return c, fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		return c, nil
	}
	cp, kp := filepath.Join(dir, hubCertFile), filepath.Join(dir, hubKeyFile)
	c, err := tls.LoadX509KeyPair(cp, kp)
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return c, fmt.Errorf("the hub's certificate in %s: %w (remove both .pem files to make a new one; paired machines must then pair again)", dir, err)
	}
	certPEM, keyPEM, err := selfSigned(time.Now())
	if err != nil {
		return c, err
	}
	if err := writePrivate(kp, keyPEM); err != nil {
		return c, err
	}
	if err := writePrivate(cp, certPEM); err != nil {
		return c, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// selfSigned makes the hub's own certificate: an ECDSA P-256 CA that is
// also its server certificate, valid ten years. Machines pin its SHA-256,
// so its names are only for show.
func selfSigned(now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	host, _ := os.Hostname()
	tpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "notch-web hub " + host},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost", host},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}

// Fingerprint is the SHA-256 of a certificate's DER, lower-case hex.
func Fingerprint(der []byte) string {
	h := sha256.Sum256(der)
	return hex.EncodeToString(h[:])
}

// ErrPin: the hub presented another certificate than the one pinned.
var ErrPin = errors.New("the hub's certificate is not the one paired with")

// pinnedTLS trusts exactly the certificate whose SHA-256 is fp, whatever
// its names or issuer: the join code carried the fingerprint, so no CA is
// needed and none is trusted.
func pinnedTLS(fp string) *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, // replaced by the pin below
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 || Fingerprint(cs.PeerCertificates[0].Raw) != fp {
				return ErrPin
			}
			return nil
		},
	}
}
