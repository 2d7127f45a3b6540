package web

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

// Adding a route is a checklist the tests enforce (docs/architecture.md):
// every route is in the architecture page's table, and every write passes
// the locks — another site's Origin is 403 and a body that is not JSON is
// 415, before any handler runs.
func TestEveryRouteIsDocumentedAndLocked(t *testing.T) {
	doc, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOpts{})
	for _, r := range e.srv.echo.Routes() {
		if r.Path == "/" || r.Path == prefix { // the redirects to the board
			continue
		}
		documented := strings.ReplaceAll(r.Path, "*", "…")
		if !strings.Contains(string(doc), "| "+r.Method+" | `"+documented) {
			t.Errorf("%s %s is not in docs/architecture.md's routes table (want a row \"| %s | `%s…\")", r.Method, r.Path, r.Method, documented)
		}
		if r.Method != http.MethodPost {
			continue
		}
		path := strings.ReplaceAll(strings.ReplaceAll(r.Path, ":agent", "claude-code"), ":signal", "logs")
		if code, _ := e.do(t, http.MethodPost, path, `{}`, map[string]string{"Origin": "http://evil.example"}); code != http.StatusForbidden {
			t.Errorf("POST %s from another site's Origin: %d, want 403", path, code)
		}
		if r.Path == prefix+"/pair/:code" {
			// A form's POST (no script on the pairing page): the one route
			// whose media type is any, as its one-time code authorizes it.
			if code, _ := e.do(t, http.MethodPost, path, ``, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}); code != http.StatusNotFound {
				t.Errorf("POST %s with an unknown code: %d, want 404", path, code)
			}
			continue
		}
		if code, _ := e.do(t, http.MethodPost, path, `{}`, map[string]string{"Content-Type": "text/plain"}); code != http.StatusUnsupportedMediaType {
			t.Errorf("POST %s as text/plain: %d, want 415", path, code)
		}
	}
}
