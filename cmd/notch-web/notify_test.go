package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	getenv := func(k string) string { return map[string]string{"DSH_HOME": home}[k] }
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
	if err != nil || stdout != "phone: sent\n" || stderr != "" || len(got) != 1 || got[0] != "POST /topic notch-web" {
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
