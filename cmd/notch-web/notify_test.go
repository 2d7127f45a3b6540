package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/internal/pushtest"
	"github.com/notch-web/notch-web/security"
)

// notify test sends to every channel of notify.json and says per channel
// what happened; a refusal or no file is one line and a non-zero exit.
func TestNotifyTest(t *testing.T) {
	var got []string
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("Title"))
	}))
	defer ok.Close()
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer refuse.Close()
	home := t.TempDir()
	dead := deadURL(t)
	getenv := func(k string) string { return map[string]string{"DSH_HOME": home, "NOTCH_URL": dead}[k] }
	run := func(args ...string) (string, string, error) {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"notify"}, args...), getenv, &out, &errb)
		return out.String(), errb.String(), err
	}

	if _, stderr, err := run("test"); err == nil || !strings.Contains(stderr, "no channels") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("no file: %v %q", err, stderr)
	}
	path := filepath.Join(home, "state", "agents-notch", "notify.json")
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(`{"ntfy": [{"name": "phone", "url": "`+ok.URL+`/topic"}]}`), 0o600)
	stdout, stderr, err := run("test")
	if err != nil || stdout != "phone: sent\n" || !strings.Contains(stderr, "sent from here") || strings.Count(stderr, "\n") != 1 || len(got) != 1 || got[0] != "POST /topic notch-web" {
		t.Errorf("one ntfy topic: %v %q %q %q", err, stdout, stderr, got)
	}
	os.WriteFile(path, []byte(`{"ntfy": [{"name": "phone", "url": "`+ok.URL+`/topic"}], "webhooks": [{"name": "team", "url": "`+refuse.URL+`/secret-hook"}]}`), 0o600)
	os.Chmod(path, 0o644)
	stdout, stderr, err = run("test")
	if err == nil || !strings.Contains(stdout, "phone: sent") || !strings.Contains(stdout, "team: not sent") ||
		strings.Contains(stdout+stderr, "secret-hook") || !strings.Contains(stderr, "chmod 600") || !strings.Contains(stderr, "1 of 2 channels refused") {
		t.Errorf("a refusing webhook: %v %q %q", err, stdout, stderr)
	}
	os.WriteFile(path, []byte(`{"ntfy": [{"name": "phone"}]}`), 0o600)
	if _, stderr, err := run("test"); err == nil || !strings.Contains(stderr, "ntfy phone: url") {
		t.Errorf("a bad file: %v %q", err, stderr)
	}
	if _, stderr, err := run("send"); err == nil || !strings.Contains(stderr, "unknown subcommand") {
		t.Errorf("a wrong subcommand: %v %q", err, stderr)
	}
}

// notify test with no host sends from here only to devices still paired:
// a revoked device's subscription is dropped, as the host drops it, and
// nothing is sent to it.
func TestNotifyTestSkipsUnpairedDevices(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "state", "agents-notch")
	devices, err := security.OpenDevices(filepath.Join(dir, "devices.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := devices.NewPairing("phone")
	if err != nil {
		t.Fatal(err)
	}
	phone, _, err := devices.Redeem(p.Code)
	if err != nil {
		t.Fatal(err)
	}
	// A second device, paired, subscribed, then revoked with no host to
	// drop its subscription (as the issue found it: the file still holds
	// it); and a subscription naming a device this store never paired.
	p, err = devices.NewPairing("stolen")
	if err != nil {
		t.Fatal(err)
	}
	stolen, _, err := devices.Redeem(p.Code)
	if err != nil {
		t.Fatal(err)
	}
	st := pushtest.NewService(t)
	w := push.NewWebPush(push.WebPushOptions{Dir: dir})
	for _, b := range []struct{ name, device string }{{"phone", phone.ID}, {"stolen", stolen.ID}, {"unknown", "dev-never-paired"}} {
		br, endpoint := st.Browser(b.name)
		s, err := push.ParseSubscription(br.SubscriptionJSON(endpoint))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Subscribe(s, b.device); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := devices.Revoke("stolen"); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return map[string]string{"DSH_HOME": home, "NOTCH_URL": deadURL(t)}[k] }
	var out, errb bytes.Buffer
	run(context.Background(), []string{"notify", "test"}, getenv, &out, &errb)
	subs, err := push.NewWebPush(push.WebPushOptions{Dir: dir}).Subscriptions()
	if err != nil || len(subs) != 1 || subs[0].Device != phone.ID {
		t.Errorf("subscriptions after notify test: %+v %v, want the paired phone's alone (%s %s)", subs, err, out.String(), errb.String())
	}
	for _, m := range st.Messages() {
		if m.Browser != "phone" {
			t.Errorf("%s's browser got a push: its device is not paired", m.Browser)
		}
	}
}

// With a host running, notify test goes through it: what it tests is what
// the host pushes to (it follows notify.json), and the host's channels
// answer.
func TestNotifyTestGoesThroughTheRunningHost(t *testing.T) {
	var got []string
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":false,"channels":[{"channel":"webpush","ok":true},{"channel":"phone","ok":false,"error":"ntfy.example answered 403 Forbidden"}]}`)
	}))
	defer host.Close()
	home := t.TempDir() // no notify.json here: the host's channels are what count
	for _, c := range []struct {
		name   string
		getenv map[string]string
		args   []string
	}{
		{"NOTCH_URL", map[string]string{"DSH_HOME": home, "NOTCH_URL": host.URL}, nil},
		{"--url", map[string]string{"DSH_HOME": home}, []string{"--url", host.URL}},
		{"--url naming the board", map[string]string{"DSH_HOME": home}, []string{"--url", host.URL + "/agents-notch/"}},
	} {
		got = nil
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"notify", "test"}, c.args...), func(k string) string { return c.getenv[k] }, &out, &errb)
		if err == nil || out.String() != "webpush: sent\nphone: not sent: ntfy.example answered 403 Forbidden\n" ||
			strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "1 of 2 channels refused") ||
			len(got) != 1 || got[0] != "POST /agents-notch/notify/test" {
			t.Errorf("%s: %v %q %q %q", c.name, err, out.String(), errb.String(), got)
		}
	}
}
