package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo is a real git repository with one commit of files.
func gitRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "one"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// openSession opens a Claude Code session in dir through its hook.
func openSession(t testing.TB, e *testEnv, id, dir string) {
	t.Helper()
	body := `{"session_id":"` + id + `","cwd":` + jsonQuote(dir) + `,"hook_event_name":"UserPromptSubmit","prompt":"go"}`
	if code, r := e.do(t, "POST", "/agents-notch/hooks/claude-code", body, nil); code != http.StatusOK {
		t.Fatalf("hook: %d %v", code, r)
	}
}

func jsonQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// getChangesJSON is GET /agents-notch/changes?session=id as JSON.
func getChangesJSON(t testing.TB, e *testEnv, id string) (int, changesReply, int) {
	t.Helper()
	req, _ := http.NewRequest("GET", e.base+"/agents-notch/changes?session="+url.QueryEscape(id), nil)
	req.Header.Set("Accept", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var r changesReply
	if err := json.Unmarshal(body, &r); err != nil && res.StatusCode < 400 {
		t.Fatalf("%s: %v", body, err)
	}
	return res.StatusCode, r, len(body)
}

// TestChangesView: a session's Changes list the files it changed since it
// opened — not the file the user had changed before — with their diff,
// and name its new untracked files; a folder that is no git work tree
// says so; a session not on the board is 404.
func TestChangesView(t *testing.T) {
	e := newEnv(t, envOpts{})
	dir := gitRepo(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n"})
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte("package b // the user's own\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	openSession(t, e, "s1", dir)
	if code, r, _ := getChangesJSON(t, e, "s1"); code != 200 || !r.OK || len(r.Files) != 0 || len(r.Untracked) != 0 {
		t.Fatalf("at the start: %d %+v", code, r)
	}
	// The agent's work: an edit with hostile text, a new file.
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\n// <script>alert(1)</script> \u202e\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, r, _ := getChangesJSON(t, e, "s1")
	if code != 200 || len(r.Files) != 1 || r.Files[0].Path != "a.go" || r.Files[0].Added != 2 || len(r.Untracked) != 1 || r.Untracked[0] != "new.txt" {
		t.Fatalf("changes: %d %+v", code, r)
	}
	if got := strings.Join(r.Files[0].Diff, "\n"); !strings.Contains(got, `+// <script>alert(1)</script> \u202e`) {
		t.Errorf("the diff: %s", got)
	}
	code, page := getPage(t, e, "/agents-notch/changes?session=s1")
	for _, want := range []string{`1 file changed, +2 −0, 1 untracked`, `data-path="a.go"`, `&lt;script&gt;alert(1)&lt;/script&gt;`, `<code>new.txt</code>`, `<div class="a" data-n="3"><b>+</b><code>// &lt;script&gt;`, `id="chg-noreply"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if code != 200 || strings.Contains(page, "<script>alert") || strings.Contains(page, `id="chg-comment"`) {
		t.Errorf("the page (%d): markup from the diff, or a Reply with no pane", code)
	}

	plain := t.TempDir()
	openSession(t, e, "s2", plain)
	if code, r, _ := getChangesJSON(t, e, "s2"); code != 200 || r.Problem != "no changes view: not a git work tree" {
		t.Errorf("a plain folder: %d %+v", code, r)
	}
	if code, _, _ := getChangesJSON(t, e, "nobody"); code != http.StatusNotFound {
		t.Errorf("a session not on the board: %d", code)
	}
	if code, _, _ := getChangesJSON(t, e, ""); code != http.StatusBadRequest {
		t.Errorf("no session: %d", code)
	}
}
