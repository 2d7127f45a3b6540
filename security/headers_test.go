package security

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func cspDirective(csp, name string) []string {
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		if len(f) > 0 && f[0] == name {
			return f[1:]
		}
	}
	return nil
}

func TestPageHeaders(t *testing.T) {
	cases := []struct {
		name      string
		harness   []string
		ancestors []string
	}{
		{"no harness", nil, []string{"'self'"}},
		{"one harness", []string{harness}, []string{"'self'", harness}},
		{"two, sorted, trailing slash trimmed", []string{"https://z.example/", harness}, []string{"'self'", harness, "https://z.example"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, Config{HarnessOrigins: c.harness})
			w := s.do(req(http.MethodGet, self, ""))
			if w.Code != 200 {
				t.Fatalf("%d", w.Code)
			}
			csp := w.Header().Get("Content-Security-Policy")
			if got := cspDirective(csp, "frame-ancestors"); !slices.Equal(got, c.ancestors) {
				t.Errorf("frame-ancestors %q, want %q (CSP %q)", got, c.ancestors, csp)
			}
			if strings.Contains(csp, "*") {
				t.Errorf("CSP has a wildcard: %q", csp)
			}
			if got := cspDirective(csp, "default-src"); !slices.Equal(got, []string{"'self'"}) {
				t.Errorf("default-src %q", got)
			}
			if got := cspDirective(csp, "object-src"); !slices.Equal(got, []string{"'none'"}) {
				t.Errorf("object-src %q", got)
			}
			if w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Error("no nosniff")
			}
		})
	}
}

func TestHarnessOrigins(t *testing.T) {
	l := New(Config{HarnessOrigins: []string{" http://a.example:1/ ", "http://b.example"}})
	got := l.HarnessOrigins()
	slices.Sort(got)
	if !slices.Equal(got, []string{"http://a.example:1", "http://b.example"}) {
		t.Errorf("HarnessOrigins = %q", got)
	}
	if !l.HarnessOrigin("http://a.example:1") || l.HarnessOrigin("http://a.example:1/") || l.HarnessOrigin("") {
		t.Error("HarnessOrigin is not an exact match")
	}
}
