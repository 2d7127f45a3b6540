package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestManifest: the board is installable — the manifest is served with its
// media type, names a standalone window on the board, and every icon it
// lists is served with the type and the size it claims.
func TestManifest(t *testing.T) {
	e := newEnv(t, envOpts{})
	res, err := http.Get(e.base + "/agents-notch/manifest.webmanifest")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/manifest+json" {
		t.Fatalf("manifest: %d %q, want 200 application/manifest+json", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var m webManifest
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Name == "" || m.ShortName == "" || m.StartURL != "/agents-notch/" || m.Display != "standalone" ||
		!strings.HasPrefix(m.StartURL, m.Scope) || m.ThemeColor == "" || m.BackgroundColor == "" {
		t.Errorf("manifest lacks what installing needs: %+v", m)
	}
	sizes := map[string]bool{}
	for _, ic := range m.Icons {
		r, err := http.Get(e.base + ic.Src)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", ic.Src, r.StatusCode)
			continue
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, ic.Type) {
			t.Errorf("%s served as %q, the manifest says %q", ic.Src, ct, ic.Type)
		}
		if ic.Type != "image/png" {
			continue
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(body))
		if err != nil {
			t.Errorf("%s: %v", ic.Src, err)
			continue
		}
		if got := fmt.Sprintf("%dx%d", cfg.Width, cfg.Height); got != ic.Sizes {
			t.Errorf("%s is %s, the manifest says %s", ic.Src, got, ic.Sizes)
		}
		if ic.Purpose == "any" {
			sizes[ic.Sizes] = true
		}
	}
	if !sizes["192x192"] || !sizes["512x512"] {
		t.Errorf("installing wants 192 and 512 px PNG icons; have %v", sizes)
	}
}

// TestPaneHarnessOrigins: the pane page names the configured harness
// origins (and only those) for its height messages; without any it names
// none, so the pane posts to nobody.
func TestPaneHarnessOrigins(t *testing.T) {
	for _, tc := range []struct {
		harness []string
		want    string
	}{
		{nil, ""},
		{[]string{"http://127.0.0.2:5173", "http://127.0.0.1:5173"}, `data-harness-origins="http://127.0.0.1:5173 http://127.0.0.2:5173"`},
	} {
		e := newEnv(t, envOpts{harness: tc.harness})
		res, err := http.Get(e.base + "/agents-notch/pane")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		has := bytes.Contains(body, []byte("data-harness-origins"))
		if tc.want == "" && has {
			t.Errorf("no harness configured, yet the pane names origins")
		}
		if tc.want != "" && !bytes.Contains(body, []byte(tc.want)) {
			t.Errorf("pane page lacks %s", tc.want)
		}
		if bytes.Contains(body, []byte(`"*"`)) {
			t.Error("the pane names the wildcard origin")
		}
	}
}
