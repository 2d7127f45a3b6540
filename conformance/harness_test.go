//go:build conformance

package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/state"
)

var (
	record  = flag.Bool("record", false, "rewrite adapters/<agent>/testdata/recorded/<scenario>.jsonl from this run's hook payloads")
	verbose = flag.Bool("standin-log", false, "log every request the stand-in answers")
)

// suite is what every test shares: a notch-web built fresh, the CLIs and
// the stand-in model API.
var suite struct {
	notchWeb string // the binary
	repo     string // the repository's root
	bin      string // conformance/node_modules/.bin
	standin  *standin.Server
	model    string // the stand-in's base URL
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	repo, err := filepath.Abs("..")
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	suite.repo = repo
	suite.bin = filepath.Join(repo, "conformance", "node_modules", ".bin")
	for _, cli := range []string{"claude", "codex", "gemini"} {
		if _, err := os.Stat(filepath.Join(suite.bin, cli)); err != nil {
			fmt.Fprintf(os.Stderr, "conformance: %s is not installed (run make conformance, which installs the pinned CLIs in conformance/)\n", cli)
			return 1
		}
	}
	tmp, err := os.MkdirTemp("", "notch-conformance-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	suite.notchWeb = filepath.Join(tmp, "notch-web")
	build := exec.Command("go", "build", "-o", suite.notchWeb, "./cmd/notch-web")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "conformance: building notch-web: %v\n%s", err, out)
		return 1
	}
	suite.standin = standin.New()
	if *verbose {
		suite.standin.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	srv := &http.Server{Handler: suite.standin, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	defer suite.standin.Close()
	suite.model = "http://" + ln.Addr().String()
	return m.Run()
}

// hook is one payload notch-web received, as the agent sent it.
type hook struct {
	agent string
	body  []byte
	held  time.Duration // how long notch-web took to answer it (a held PermissionRequest: the wait)
}

// run is one scenario's world: a temp HOME and project, a notch-web of its
// own (its own DSH home, port 0), and a recording proxy in front of it that
// the agent's hooks are installed to point at.
type run struct {
	t        *testing.T
	agent    string // install name: claude-code, codex, gemini
	root     string
	home     string
	work     string // the agent's cwd
	host     string // notch-web's base URL
	proxy    string // the recorder's base URL
	mu       sync.Mutex
	hooks    []hook
	installs string // what hooks install said
	// final is what the board must show once the scenario is over, for
	// the replay test (host/replay_test.go): "settled N STATUS".
	final string
	// scenario names the recording; "" is the test's last name element.
	scenario string
	// noRecord keeps the run out of the recordings (RECORD=1).
	noRecord bool
	// term is the run's terminal, if it has one: its screen at the first
	// failure says what the agent was doing then (by the end a TUI has
	// often left its alternate screen, and the last screen is blank).
	term      *term
	screenLog sync.Once
	// otlp are the OpenTelemetry exports the agent sent (otel_test.go).
	otlp []otlpExport
	// slow is the run's scenario:slow prompt, in its own words (the test's
	// name), so the stand-in's Held and Release count only this run's
	// turns while other tests run beside it.
	slow string
	// hostArgs are more flags for the run's notch-web, from its next
	// start (restartHost): a machine that joins a hub has --join.
	hostArgs []string
}

// newRun sets up a scenario's world for agent; seed writes the agent's
// own offline configuration into the temp HOME before the hooks go in.
func newRun(t *testing.T, agent string, seed func(r *run)) *run {
	t.Helper()
	root := t.TempDir()
	r := &run{t: t, agent: agent, root: root, home: filepath.Join(root, "home"), work: filepath.Join(root, "project")}
	r.slow = fmt.Sprintf("scenario:slow Take your time, %s.", strings.ReplaceAll(t.Name(), "/", " ")) // no path for an agent to look up
	for _, d := range []string{r.home, r.work, filepath.Join(root, "dsh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(r.killStrays) // last: after the tmux server and the host
	r.startHost()
	r.startProxy()
	if seed != nil {
		seed(r)
	}
	out, err := r.notch("hooks", "install", agent, "--url", r.proxy)
	if err != nil {
		t.Fatalf("notch-web hooks install %s: %v\n%s", agent, err, out)
	}
	r.installs = out
	t.Cleanup(func() {
		if *record && !r.noRecord { // what the agent sent, whatever the board made of it
			r.save()
		}
	})
	return r
}

// notch runs the notch-web binary with the run's HOME.
func (r *run) notch(args ...string) (string, error) {
	cmd := exec.Command(suite.notchWeb, args...)
	cmd.Env = r.env()
	cmd.Dir = r.work
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// env is the environment every program of the run gets: nothing of the
// machine's but PATH.
func (r *run) env(extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + r.home,
		"TMPDIR=" + r.root,
		"TMUX_TMPDIR=" + r.root, // the tmux server notch-web starts sessions in (launch_test.go) is the run's
		"LANG=C.UTF-8",
		"TERM=xterm-256color",
		"NO_UPDATE_NOTIFIER=1",
	}
	return append(env, extra...)
}

func (r *run) startHost() { r.startHostAt("127.0.0.1:0", "notch-web.log") }

// startHostAt starts the run's notch-web on addr (its DSH home is the
// run's, whichever time it starts), logging to logName under the run's
// root, and sets r.host from its first line.
func (r *run) startHostAt(addr, logName string) {
	t := r.t
	args := append([]string{"--addr", addr, "--dsh-home", filepath.Join(r.root, "dsh"), "--log-level", "debug"}, r.hostArgs...)
	cmd := exec.Command(suite.notchWeb, args...)
	cmd.Env = r.env()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(r.root, logName))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting notch-web: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		logf.Close()
	})
	// Registered after the stop, so it runs before it: after the
	// scenario, the history must say what the board does.
	t.Cleanup(func() { r.historyAgrees("after the scenario (" + logName + ")") })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case line, ok := <-lines:
		if !ok || !strings.HasSuffix(line, "/agents-notch/") {
			t.Fatalf("notch-web's first line is not its URL: %q", line)
		}
		// (A restart on the same address leaves r.host as the proxy reads it.)
		if u := strings.TrimSuffix(line, "/agents-notch/"); u != r.host {
			r.host = u
		}
	case <-time.After(20 * time.Second):
		t.Fatal("notch-web printed no URL within 20 s")
	}
}

// startProxy puts the recorder in front of notch-web: every hook body is
// kept, then forwarded as it came, and notch-web's answer goes back.
func (r *run) startProxy() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		body, err := io.ReadAll(io.LimitReader(q.Body, 4<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		agent := strings.TrimPrefix(q.URL.Path, "/agents-notch/hooks/")
		if strings.HasPrefix(q.URL.Path, otlpPath) {
			r.mu.Lock()
			r.otlp = append(r.otlp, otlpExport{path: q.URL.Path, contentType: q.Header.Get("Content-Type"), encoding: q.Header.Get("Content-Encoding"), body: body})
			r.mu.Unlock()
			r.forward(w, q, body)
			return
		}
		if q.URL.Path == "/agents-notch/statusline" {
			agent = "statusline" // notch-web statusline's report, not a hook
		}
		r.mu.Lock()
		r.hooks = append(r.hooks, hook{agent: agent, body: body})
		i := len(r.hooks) - 1
		r.mu.Unlock()
		start := time.Now()
		defer func() {
			r.mu.Lock()
			r.hooks[i].held = time.Since(start)
			r.mu.Unlock()
		}()
		r.forward(w, q, body)
	})}
	go srv.Serve(ln)
	r.t.Cleanup(func() { srv.Close() })
	r.proxy = "http://" + ln.Addr().String()
}

// forward sends a request the proxy kept on to notch-web as it came, and
// notch-web's answer back.
func (r *run) forward(w http.ResponseWriter, q *http.Request, body []byte) {
	fw, _ := http.NewRequest(q.Method, r.host+q.URL.RequestURI(), bytes.NewReader(body))
	// What notch-web hook says of the agent beside the payload: its
	// process (a row never outlives it) and its terminal; an OTLP export's
	// encoding.
	for _, h := range []string{"Content-Type", "Content-Encoding", proc.Header, terminal.Header} {
		if v := q.Header.Get(h); v != "" {
			fw.Header.Set(h, v)
		}
	}
	resp, err := proxyClient.Do(fw)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// proxyClient waits longer than any hook's own timeout: a
// PermissionRequest is held by notch-web up to its hold (25 s), and the
// proxy must not be what ends it (a proxy's 502 reads to the agent as no
// decision).
var proxyClient = &http.Client{Timeout: 90 * time.Second}

// events lists the hook events received so far, in order.
func (r *run) events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, h := range r.hooks {
		if h.agent == "statusline" {
			out = append(out, "statusline")
			continue
		}
		out = append(out, eventName(h.body))
	}
	return out
}

// count is how many hooks of an event have arrived.
func (r *run) count(event string) int {
	n := 0
	for _, e := range r.events() {
		if e == event {
			n++
		}
	}
	return n
}

// eventName is a payload's hook event (or Codex notify's type).
func eventName(body []byte) string {
	var p struct {
		Event  string `json:"hook_event_name"`
		Type   string `json:"type"`
		Notice string `json:"notification_type"`
	}
	_ = json.Unmarshal(body, &p)
	switch {
	case p.Event == "Notification" && p.Notice != "":
		return "Notification(" + p.Notice + ")"
	case p.Event != "":
		return p.Event
	case p.Type != "":
		return "notify(" + p.Type + ")"
	}
	return "?"
}

// board reads notch-web's rows.
func (r *run) board() (state.Document, error) { return boardAt(r.host) }

// boardAt is the board of the notch-web at base (a hub's, say).
func boardAt(base string) (state.Document, error) {
	var d state.Document
	resp, err := http.Get(base + "/agents-notch/state")
	if err != nil {
		return d, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return d, fmt.Errorf("GET /agents-notch/state: %s", resp.Status)
	}
	err = json.NewDecoder(resp.Body).Decode(&d)
	return d, err
}

// rowsText is the board in one line a failure can show.
func rowsText(d state.Document) string {
	if len(d.Sessions) == 0 {
		return "no rows"
	}
	var parts []string
	for _, s := range d.Sessions {
		p := fmt.Sprintf("%s[%s", short(s.ID), s.Status)
		if s.Origin != "" {
			p += " " + s.Origin + " of " + short(s.ParentSession)
		}
		if s.Title != "" {
			p += fmt.Sprintf(" %q", s.Title)
		}
		p += fmt.Sprintf(" ctx=%d]", s.ContextTokens)
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// waitBoard polls the board until check passes or the deadline; on the
// deadline the test fails with check's last complaint, the rows and the
// hooks received.
func (r *run) waitBoard(step string, within time.Duration, check func(state.Document) error) state.Document {
	r.t.Helper()
	return r.waitBoardAt(r.host, step, within, check)
}

// waitBoardAt is waitBoard on the board at base (a hub's).
func (r *run) waitBoardAt(base, step string, within time.Duration, check func(state.Document) error) state.Document {
	r.t.Helper()
	deadline := time.Now().Add(within)
	var last error
	var d state.Document
	for {
		var err error
		d, err = boardAt(base)
		if err == nil {
			if last = check(d); last == nil {
				r.passed(step)
				return d
			}
		} else {
			last = err
		}
		if time.Now().After(deadline) {
			r.fail(step, fmt.Sprintf("%s: after %v: %v\n  board: %s\n  hooks: %s", step, within, last, rowsText(d), strings.Join(r.events(), " ")))
			return d
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// holdBoard checks that check keeps passing for a while: a late hook must
// not revive a settled row.
func (r *run) holdBoard(step string, hold time.Duration, check func(state.Document) error) {
	r.t.Helper()
	end := time.Now().Add(hold)
	for time.Now().Before(end) {
		d, err := r.board()
		if err == nil {
			err = check(d)
		}
		if err != nil {
			r.fail(step+" (held)", fmt.Sprintf("%s: did not hold: %v\n  board: %s\n  hooks: %s", step, err, rowsText(d), strings.Join(r.events(), " ")))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.passed(step + " (held)")
}

// knownFailures are board checks that fail today, by "Test/step", each
// with the fix it waits for. They are logged as KNOWN FAILURE, and one
// that passes as NOW PASSES (with CONFORMANCE_STRICT=1 both fail the run),
// so the list is taken down as fixes land without failing CI meanwhile.
var knownFailures = map[string]string{}

func (r *run) known(step string) (string, bool) {
	name := r.t.Name()
	why, ok := knownFailures[name+"/"+step]
	return why, ok
}

// fail reports a failed board check: an error, or a known failure's log.
func (r *run) fail(step, msg string) {
	r.t.Helper()
	if why, ok := r.known(step); ok && os.Getenv("CONFORMANCE_STRICT") == "" {
		r.t.Logf("KNOWN FAILURE (%s): %s", why, msg)
		return
	}
	r.t.Error(msg)
	r.logScreenOnce()
}

// orStop ends a test whose steps build on each other at its first failure
// (the screen logged): the steps after it would only wait out their
// timeouts.
func (r *run) orStop() {
	r.t.Helper()
	if r.t.Failed() {
		r.t.FailNow()
	}
}

// logScreenOnce logs the terminal's screen at the run's first failure.
func (r *run) logScreenOnce() {
	r.t.Helper()
	if r.term != nil {
		r.screenLog.Do(func() { r.term.log("at the first failure") })
	}
}

// passed notes a board check that passed: a known failure that passes is
// said loudly (an error with CONFORMANCE_STRICT=1): take it off the list.
func (r *run) passed(step string) {
	r.t.Helper()
	if why, ok := r.known(step); ok {
		msg := fmt.Sprintf("NOW PASSES: %s, which knownFailures lists (%s): take it off the list", step, why)
		if os.Getenv("CONFORMANCE_STRICT") != "" {
			r.t.Error(msg)
			return
		}
		r.t.Log(msg)
	}
}

// main rows are the agent's own sessions; the others are subagents.
func mainRows(d state.Document) (mains, subs []state.Session) {
	for _, s := range d.Sessions {
		if s.Origin == state.OriginSubagent {
			subs = append(subs, s)
		} else {
			mains = append(mains, s)
		}
	}
	return mains, subs
}

// settled is the no-ghost rule once every agent process of the run has
// exited: exactly want main rows (none removed, none from a helper thread),
// each with status (done or error), and no subagent row left that is not
// settled under a parent on the board.
func settled(want int, status string) func(state.Document) error {
	return func(d state.Document) error {
		mains, subs := mainRows(d)
		if len(mains) != want {
			return fmt.Errorf("%d session rows, want %d (a settled session stays until closed out; a helper thread is no row)", len(mains), want)
		}
		for _, s := range mains {
			if s.Status != status {
				return fmt.Errorf("row %s is %q, want %q (the agent has exited)", short(s.ID), s.Status, status)
			}
		}
		return noOrphans(d, subs)
	}
}

// noOrphans: a subagent row is under a parent the board holds, and not
// working or needing the user once its parent has settled.
func noOrphans(d state.Document, subs []state.Session) error {
	parents := map[string]string{}
	for _, s := range d.Sessions {
		parents[s.ID] = s.Status
	}
	for _, s := range subs {
		ps, ok := parents[s.ParentSession]
		if !ok {
			return fmt.Errorf("subagent row %s has no parent row (%s): an orphan", short(s.ID), short(s.ParentSession))
		}
		if (ps == state.StatusDone || ps == state.StatusError) && (s.Status == state.StatusWorking || s.Status == state.StatusAttention) {
			return fmt.Errorf("subagent row %s is %q under a settled parent: an orphan", short(s.ID), s.Status)
		}
	}
	return nil
}

// oneMain waits for the run's one session row to be in status.
func oneMain(status string) func(state.Document) error {
	return func(d state.Document) error {
		mains, subs := mainRows(d)
		if len(mains) != 1 {
			return fmt.Errorf("%d session rows, want 1", len(mains))
		}
		if mains[0].Status != status {
			return fmt.Errorf("row %s is %q, want %q", short(mains[0].ID), mains[0].Status, status)
		}
		return noOrphans(d, subs)
	}
}

// exec runs an agent CLI headless in the project, with a deadline, and
// returns its combined output and exit code.
func (r *run) exec(within time.Duration, extraEnv []string, name string, args ...string) (string, int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(suite.bin, name), args...)
	cmd.Dir = r.work
	cmd.Env = r.env(extraEnv...)
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		r.t.Errorf("%s %s did not exit within %v:\n%s", name, strings.Join(args, " "), within, out)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("%s: %v", name, err)
	}
	return string(out), code
}

// writeFile writes a file under the run's root, making its directory.
func (r *run) writeFile(path, content string) {
	r.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// adapterDir is an agent's adapter package: its install name without the
// dashes (claude-code is adapters/claudecode), as host/replay_test.go reads it.
func adapterDir(agent string) string { return strings.ReplaceAll(agent, "-", "") }

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// agentRE is Claude Code's subagent id ("a" and 16 hex digits).
	agentRE = regexp.MustCompile(`\ba[0-9a-f]{16}\b`)
	dashRE  = regexp.MustCompile(`[^a-zA-Z0-9]`)
)

// placeholder is the stable root of every path in a fixture: the temp
// root of the run becomes it, so no path of this machine is committed.
const placeholder = "/tmp/conformance"

// normalize makes a recorded payload stable: the run's paths become the
// placeholder (also in Claude Code's dashed project-directory form), and
// every UUID becomes a numbered one, in order of first appearance.
func normalize(body []byte, root string, ids map[string]string) []byte {
	s := string(body)
	real := []string{root}
	if resolved, err := filepath.EvalSymlinks(root); err == nil && resolved != root {
		real = append(real, resolved)
	}
	for _, p := range real {
		s = strings.ReplaceAll(s, p, placeholder)
		// Claude Code names a project's directory by its path with every
		// character but letters and digits made a dash.
		s = strings.ReplaceAll(s, dashRE.ReplaceAllString(p, "-"), dashRE.ReplaceAllString(placeholder, "-"))
	}
	s = uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		if n, ok := ids[u]; ok {
			return n
		}
		n := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(ids)+1)
		ids[u] = n
		return n
	})
	s = agentRE.ReplaceAllStringFunc(s, func(a string) string {
		if n, ok := ids[a]; ok {
			return n
		}
		n := fmt.Sprintf("a%016d", len(ids)+1)
		ids[a] = n
		return n
	})
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return []byte(s)
	}
	return buf.Bytes()
}

// save writes the run's hooks to adapters/<agent>/testdata/recorded/<name>.jsonl,
// name being the test's last path element.
func (r *run) save() {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := r.scenario
	if name == "" {
		name = r.t.Name()
		if i := strings.LastIndex(name, "/"); i >= 0 {
			name = name[i+1:]
		}
		name = strings.ToLower(name)
	}
	dir := filepath.Join(suite.repo, "adapters", adapterDir(r.agent), "testdata", "recorded")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.t.Error(err)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Recorded by make conformance (%s): %s\n", r.t.Name(), versions[r.agent])
	if r.final != "" {
		fmt.Fprintf(&b, "# final: %s\n", r.final)
	}
	ids := map[string]string{}
	for _, h := range r.hooks {
		if h.agent != r.agent {
			continue
		}
		b.Write(normalize(h.body, r.root, ids))
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(b.String()), 0o644); err != nil {
		r.t.Error(err)
	}
}

// versions are the pinned CLIs (conformance/package.json).
var versions = map[string]string{
	"claude-code": "@anthropic-ai/claude-code 2.1.328",
	"codex":       "@openai/codex 0.169.0",
	"gemini":      "@google/gemini-cli 0.61.0",
	"opencode":    "opencode-ai 1.18.33",
	"copilot":     "@github/copilot 1.0.102",
	"kilo":        "@kilocode/cli 7.7.7",
	"pi":          "@mariozechner/pi-coding-agent 0.73.1",
}

// logEvents writes the hooks received, in order, to the test log, with
// how long notch-web held each PermissionRequest.
func (r *run) logEvents() {
	r.mu.Lock()
	var ev []string
	for _, h := range r.hooks {
		e := eventName(h.body)
		if h.agent == "statusline" {
			e = "statusline"
		}
		if e == "PermissionRequest" {
			e += fmt.Sprintf("(answered after %v)", h.held.Round(100*time.Millisecond))
		}
		ev = append(ev, e)
	}
	r.mu.Unlock()
	r.t.Logf("hooks received (%d): %s", len(ev), strings.Join(ev, " "))
}

// waitFor waits until ok holds, failing the test at the deadline with the
// hooks received.
func (r *run) waitFor(what string, within time.Duration, ok func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			r.t.Errorf("%s did not come within %v; hooks: %s", what, within, strings.Join(r.events(), " "))
			r.logScreenOnce()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// titled checks the one session row's title and context tokens after a
// plain turn: the title is the agent's own or the first prompt's line
// (want), and an agent that reports usage (tokens) has contextTokens > 0.
func (r *run) titled(step string, d state.Document, want string, tokens bool) {
	r.t.Helper()
	mains, _ := mainRows(d)
	if len(mains) != 1 {
		return // the board check before this one has said so
	}
	s := mains[0]
	if s.Title != want {
		r.t.Errorf("%s: the row's title is %q, want %q (the first prompt's line)", step, s.Title, want)
	}
	if tokens && s.ContextTokens <= 0 {
		r.t.Errorf("%s: contextTokens %d, want > 0 (the agent reported usage)", step, s.ContextTokens)
	}
}

// hasTokens is a board check: the one session row has contextTokens > 0.
func hasTokens(d state.Document) error {
	if m, _ := mainRows(d); len(m) == 1 && m[0].ContextTokens > 0 {
		return nil
	}
	return errf("no contextTokens on the row")
}
