package tlsmux

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"
)

func testConfig(t *testing.T) *tls.Config {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

// One port: https and plain http both answered, each knowing which it is,
// and a client that connects and says nothing holds up no other.
func TestOnePortBothWays(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := New(raw, testConfig(t), slog.New(slog.DiscardHandler))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil {
			w.Write([]byte("tls"))
		} else {
			w.Write([]byte("plain"))
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()
	addr := raw.Addr().String()

	silent, err := net.Dial("tcp", addr) // never writes
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()

	get := func(c *http.Client, u string) string {
		res, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b := make([]byte, 16)
		n, _ := res.Body.Read(b)
		return string(b[:n])
	}
	if got := get(http.DefaultClient, "http://"+addr+"/"); got != "plain" {
		t.Errorf("http: %q", got)
	}
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	if got := get(insecure, "https://"+addr+"/"); got != "tls" {
		t.Errorf("https: %q", got)
	}
}
