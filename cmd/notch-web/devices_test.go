package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/syncbuf"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// devicesCmd runs notch-web devices ARGS against the host at base: its
// stdout, stderr and error.
func devicesCmd(t *testing.T, base string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb strings.Builder
	err := run(context.Background(), append([]string{"devices"}, append(args, "--url", base)...), func(string) string { return "" }, &out, &errb)
	return out.String(), errb.String(), err
}

// oneLine checks a failure is one line on stderr, naming want.
func oneLine(t *testing.T, stderr string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error; stderr %q", stderr)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "notch-web devices: ") || !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want one line saying %q", stderr, want)
	}
}

// redeem presses the pairing page's button as a phone behind an https
// proxy would, and returns the device cookie.
func redeem(t *testing.T, base, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, base+u.Path, nil)
	req.Host = u.Host
	req.Header.Set("X-Forwarded-Proto", "https")
	req.Header.Set("Origin", "https://"+u.Host)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	for _, ck := range res.Cookies() {
		if ck.Name == "notch_device" {
			return ck.Value
		}
	}
	t.Fatalf("pairing answered %d and no cookie", res.StatusCode)
	return ""
}

func TestDevicesCommand(t *testing.T) {
	base, _ := startRun(t, "--allow-host", "phone.example")

	out, errOut, err := devicesCmd(t, base, "list")
	if err != nil || !strings.Contains(out, "no device is paired") {
		t.Fatalf("list with none: %q %q %v", out, errOut, err)
	}
	out, errOut, err = devicesCmd(t, base, "add", "phone")
	if err != nil {
		t.Fatalf("add: %v %s", err, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	link := lines[len(lines)-1]
	if !strings.HasPrefix(link, "https://phone.example/agents-notch/pair/") {
		t.Errorf("the link %q, want https://phone.example/agents-notch/pair/CODE", link)
	}
	qr := lines[:len(lines)-1]
	if len(qr) < 15 {
		t.Errorf("the QR code is %d lines", len(qr))
	}
	for _, l := range qr {
		if n := utf8.RuneCountInString(l); n > 80 || n != utf8.RuneCountInString(qr[0]) {
			t.Errorf("a QR line of %d columns (want all alike, at most 80): %q", n, l)
		}
		if strings.Trim(l, " ▀▄█") != "" {
			t.Errorf("a QR line holds other characters (not a terminal: no colours): %q", l)
		}
	}
	if !strings.Contains(errOut, "once, until") || !strings.Contains(errOut, "Tailscale Serve") {
		t.Errorf("add's stderr %q, want until when and the proxy's note", errOut)
	}

	redeem(t, base, link)
	out, _, err = devicesCmd(t, base, "list")
	if err != nil || !strings.Contains(out, "NAME") || !strings.Contains(out, "phone") {
		t.Errorf("list after pairing: %q %v", out, err)
	}
	_, errOut, err = devicesCmd(t, base, "add", "phone")
	oneLine(t, errOut, err, "paired already")

	if !strings.Contains(out, "answer") {
		t.Errorf("list: %q, want the phone's role, answer (the default)", out)
	}
	out, errOut, err = devicesCmd(t, base, "role", "phone", "view")
	if err != nil || !strings.Contains(out, "answer → view") {
		t.Errorf("role phone view: %q %q %v", out, errOut, err)
	}
	out, _, err = devicesCmd(t, base, "role", "--url", base, "phone", "view")
	if err != nil || !strings.Contains(out, "is view already") {
		t.Errorf("role phone view again: %q %v", out, err)
	}
	_, errOut, err = devicesCmd(t, base, "role", "tablet", "steer")
	oneLine(t, errOut, err, "no paired device")
	out, errOut, err = devicesCmd(t, base, "add", "tablet", "--role", "launch")
	if err != nil || !strings.Contains(errOut, "(role launch)") {
		t.Errorf("add tablet --role launch: %q %q %v", out, errOut, err)
	}

	out, _, err = devicesCmd(t, base, "revoke", "phone")
	if err != nil || !strings.HasPrefix(out, "revoked phone (") {
		t.Errorf("revoke: %q %v", out, err)
	}
	_, errOut, err = devicesCmd(t, base, "revoke", "phone")
	oneLine(t, errOut, err, "no paired device")
}

func TestDevicesCommandMisuse(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "want add NAME, list, revoke NAME|ID or role"},
		{[]string{"add", "phone", "--role", "admin"}, `--role "admin": a role is view, answer, steer or launch`},
		{[]string{"add", "phone", "--role", "Steer"}, "a role is view, answer, steer or launch"},
		{[]string{"list", "--role", "view"}, "--role is for notch-web devices add"},
		{[]string{"role"}, "want a device and a role"},
		{[]string{"role", "phone"}, "want a device and a role"},
		{[]string{"role", "phone", "root"}, `"root": a role is view`},
		{[]string{"role", "phone", "view", "x"}, `unexpected argument "x"`},
		{[]string{"ad"}, `no verb "ad"`},
		{[]string{"add"}, "want a name"},
		{[]string{"add", "<b>"}, "device name is 1 to 40"},
		{[]string{"add", "a", "b"}, `unexpected argument "b"`},
		{[]string{"list", "x"}, "takes none"},
		{[]string{"revoke"}, "want a device"},
		{[]string{"list", "--nope"}, "flag provided but not defined"},
	} {
		_, errOut, err := devicesCmd(t, "http://127.0.0.1:1", tt.args...)
		oneLine(t, errOut, err, tt.want)
	}
	_, errOut, err := devicesCmd(t, "http://127.0.0.1:1", "list")
	oneLine(t, errOut, err, "no notch-web answers at http://127.0.0.1:1: start it, or pass --url URL")
	out, _, err := devicesCmd(t, "http://127.0.0.1:1", "-h")
	if err != nil || !strings.HasPrefix(out, "usage: notch-web devices") {
		t.Errorf("devices -h: %q %v", out, err)
	}
}

// selfSigned writes a certificate for phone.example and 127.0.0.1 and its
// key, and returns their paths.
func selfSigned(t *testing.T, dir string) (string, string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "phone.example"},
		DNSNames: []string{"phone.example"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	cert, keyf := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyf, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return cert, keyf
}

// With --tls-cert/--tls-key the one port answers https (a phone) and plain
// http (this machine's hooks and commands) alike.
func TestTLSBesidePlainHTTP(t *testing.T) {
	cert, key := selfSigned(t, t.TempDir())
	base, _ := startRun(t, "--allow-host", "phone.example", "--tls-cert", cert, "--tls-key", key)
	if res, err := http.Get(base + "/healthz"); err != nil || res.StatusCode != 200 {
		t.Fatalf("plain http beside TLS: %v %v", res, err)
	}
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	res, err := insecure.Get(strings.Replace(base, "http://", "https://", 1) + "/healthz")
	if err != nil || res.StatusCode != 200 || res.TLS == nil {
		t.Fatalf("https: %v %v", res, err)
	}
	res.Body.Close()
	out, _, err := devicesCmd(t, base, "add", "phone")
	port := base[strings.LastIndexByte(base, ':')+1:]
	if err != nil || !strings.Contains(out, "https://phone.example:"+port+"/agents-notch/pair/") {
		t.Errorf("a link with our own TLS names our port: %q %v", out, err)
	}
}

func TestTLSErrors(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	other, _ := selfSigned(t, t.TempDir())
	otherKey := filepath.Join(filepath.Dir(other), "key.pem")
	junk := filepath.Join(dir, "junk.pem")
	os.WriteFile(junk, []byte("not a certificate"), 0o600)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert", cert}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-cert", filepath.Join(dir, "nope.pem"), "--tls-key", key}, "--tls-cert " + filepath.Join(dir, "nope.pem") + ": no such file"},
		{[]string{"--tls-cert", cert, "--tls-key", filepath.Join(dir, "nope.pem")}, "--tls-key " + filepath.Join(dir, "nope.pem") + ": no such file"},
		{[]string{"--tls-cert", cert, "--tls-key", otherKey}, "private key does not match public key"},
		{[]string{"--tls-cert", junk, "--tls-key", key}, "want a PEM certificate and its own PEM private key"},
	} {
		_, errOut, err := runOnceEnv(t, true, env("DSH_HOME", t.TempDir()), append([]string{"--addr", "127.0.0.1:0"}, tt.args...)...)
		if err == nil || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: %q %v, want one line saying %q", tt.args, errOut, err, tt.want)
		}
	}
}

func TestPairBase(t *testing.T) {
	for _, tt := range []struct {
		cfg        config
		tls        bool
		want, warn string
	}{
		{config{addr: "127.0.0.1:7340", publicURL: "https://laptop.tailnet.ts.net/"}, false, "https://laptop.tailnet.ts.net", ""},
		{config{addr: "127.0.0.1:7340", allowHosts: listFlag{"laptop.tailnet.ts.net"}}, false, "https://laptop.tailnet.ts.net", "Tailscale Serve"},
		{config{addr: "0.0.0.0:7340", allowHosts: listFlag{"phone.example"}}, true, "https://phone.example:7340", ""},
		{config{addr: "0.0.0.0:7340", allowHosts: listFlag{"phone.example:8443"}}, true, "https://phone.example:8443", ""},
		{config{addr: "127.0.0.1:7340"}, false, "http://127.0.0.1:7340", "this machine only"},
		{config{addr: "127.0.0.1:7340"}, true, "https://127.0.0.1:7340", "this machine only"},
	} {
		got, warn := pairBase(&tt.cfg, 7340, tt.tls)()
		if got != tt.want || (tt.warn == "") != (warn == "") || !strings.Contains(warn, tt.warn) {
			t.Errorf("%+v tls %v: %q, %q; want %q, a warning saying %q", tt.cfg, tt.tls, got, warn, tt.want, tt.warn)
		}
	}
}

// With --tls-cert the first line of stdout is the https address a browser
// opens, and the start-up record says TLS, the names it answers to, where
// pushes link and the channels.
func TestTLSStartLine(t *testing.T) {
	cert, key := selfSigned(t, t.TempDir())
	home := t.TempDir()
	notify := filepath.Join(home, "state", "agents-notch", "notify.json")
	os.MkdirAll(filepath.Dir(notify), 0o700)
	os.WriteFile(notify, []byte(`{"ntfy":[{"name":"phone","url":"https://ntfy.sh/a-long-random-topic-1234"}]}`), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var logs syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--dsh-home", home, "--allow-host", "phone.example",
			"--public-url", "https://phone.example", "--tls-cert", cert, "--tls-key", key}, func(string) string { return "" }, pw, &logs)
		pw.Close()
	}()
	defer func() { cancel(); <-done }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	if line != "https://phone.example/agents-notch/\n" {
		t.Errorf("the first line: %q, want the https address a phone opens (--public-url)", line)
	}
	var rec struct {
		Data struct {
			Shown      string   `json:"shown"`
			TLS        bool     `json:"tls"`
			AllowHosts []string `json:"allowHosts"`
			PublicURL  string   `json:"publicUrl"`
			Channels   []string `json:"channels"`
		} `json:"data"`
	}
	waitfor.Until(t, "the start-up record", func() bool {
		for l := range strings.Lines(logs.String()) {
			if strings.Contains(l, `"message":"serving"`) {
				return json.Unmarshal([]byte(l), &rec) == nil
			}
		}
		return false
	})
	d := rec.Data
	if !d.TLS || d.Shown != strings.TrimSpace(line) || !slices.Equal(d.AllowHosts, []string{"phone.example"}) ||
		d.PublicURL != "https://phone.example" || !slices.Contains(d.Channels, "ntfy phone") {
		t.Errorf("the start-up record: %+v", d)
	}
}

// devices takes --dsh-home as pair and the host do, before or after its
// verb and name, and asks the host that serves that DSH home (host.json),
// which removes the file as it stops.
func TestDevicesFindTheHostByItsDSHHome(t *testing.T) {
	home := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	none := func(string) string { return "" }
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--dsh-home", home, "--log-level", "error"}, none, pw, io.Discard)
		pw.Close()
	}()
	if _, err := bufio.NewReader(pr).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	for _, args := range [][]string{
		{"devices", "list", "--dsh-home", home},
		{"devices", "--dsh-home", home, "list"},
		{"devices", "add", "phone", "--dsh-home", home},
		{"devices", "list", "--dsh-home=" + home},
	} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), args, none, &out, &errb); err != nil {
			t.Errorf("%q: %v: %s", args, err, errb.String())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(hostFilePath(home)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("host.json after the host stopped: %v", err)
	}
}

func TestReadHostFile(t *testing.T) {
	for _, tc := range []struct {
		body string
		ok   bool
	}{
		{`{"url":"http://127.0.0.1:7340","pid":12}`, true},
		{`{"url":"https://laptop.example:7340"}`, true},
		{`{"url":"file:///etc/passwd"}`, false},
		{`{"url":"http://a b"}`, false},
		{`not json`, false},
		{strings.Repeat(" ", 8<<10) + `{"url":"http://x"}`, false},
	} {
		home := t.TempDir()
		os.MkdirAll(filepath.Dir(hostFilePath(home)), 0o700)
		os.WriteFile(hostFilePath(home), []byte(tc.body), 0o600)
		if _, err := readHostFile(home); (err == nil) != tc.ok {
			t.Errorf("readHostFile(%.40q) = %v, want ok %v", tc.body, err, tc.ok)
		}
	}
}
