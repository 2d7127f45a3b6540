//go:build ignore

// replyp99 measures a Reply from the board, end to end: POST
// /agents-notch/reply to a notch-web binary, answered once the text and
// its Enter are typed into a real tmux pane. The pane runs a stand-in for
// Codex's TUI — its empty composer drawn (the placeholder dim), then cat,
// which reads what is typed and shows nothing — so the host does all the
// checks a Codex Reply costs: the pane's foreground (a scan of its
// process group: Codex's hooks name its daemon), and its screen
// (capture-pane). Run it for each build, alternated:
//
//	go run replyp99.go -bin ./before -n 200 && go run replyp99.go -bin ./after -n 200
//
// It prints p50, p90, p99 and max of the POST's time (each includes the
// 150 ms the host waits between the text and its Enter).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "notch-web", "the notch-web binary")
	n := flag.Int("n", 200, "replies")
	flag.Parse()
	if err := run(*bin, *n); err != nil {
		fmt.Fprintln(os.Stderr, "replyp99:", err)
		os.Exit(1)
	}
}

func run(bin string, n int) error {
	dir, err := os.MkdirTemp("", "replyp99")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "tmux")
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	pane, err := tmux("-f", "/dev/null", "new-session", "-d", "-P", "-F", "#{pane_id}", "-x", "100", "-y", "20",
		`printf '\n\033[1m›\033[0m \033[2mAsk Codex to do anything\033[0m\n\n'; stty -echo; exec cat >/dev/null`)
	if err != nil {
		return fmt.Errorf("tmux: %v %s", err, pane)
	}
	defer tmux("kill-server")
	pidS, _ := tmux("display-message", "-p", "-t", pane, "#{pane_pid}")
	pid, _ := strconv.Atoi(pidS)
	var start string
	for range 100 { // until the pane's sh has exec'd cat
		b, _ := os.ReadFile("/proc/" + pidS + "/stat")
		if s := string(b); strings.Contains(s, "(cat)") {
			start = strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[19]
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	procH := url.Values{"pid": {strconv.Itoa(pid)}, "start": {start}, "boot": {strings.TrimSpace(string(boot))}}.Encode()
	whereH := url.Values{"tmux-pane": {pane}, "tmux-socket": {sock}}.Encode()

	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--dsh-home", filepath.Join(dir, "dsh"))
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		return fmt.Errorf("notch-web printed no URL")
	}
	base := strings.TrimSuffix(sc.Text(), "/agents-notch/")
	go io.Copy(io.Discard, stdout)

	post := func(path string, body string, h map[string]string) (int, error) {
		req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewBufferString(body))
		req.Header.Set("Content-Type", "application/json")
		u, _ := url.Parse(base)
		req.Header.Set("Origin", "http://"+u.Host)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	hook := `{"session_id":"s1","turn_id":"t1","transcript_path":null,"cwd":"` + dir + `","hook_event_name":"SessionStart","model":"m","permission_mode":"default","source":"startup"}`
	if code, err := post("/agents-notch/hooks/codex", hook, map[string]string{"Notch-Proc": procH, "Notch-Where": whereH}); err != nil || code/100 != 2 {
		return fmt.Errorf("hook: %d %v", code, err)
	}
	var took []time.Duration
	for i := range n {
		t0 := time.Now()
		code, err := post("/agents-notch/reply", `{"sessionId":"s1","text":"reply `+strconv.Itoa(i)+`"}`, nil)
		d := time.Since(t0)
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("reply %d: %d %v", i, code, err)
		}
		took = append(took, d)
	}
	slices.Sort(took)
	q := func(p float64) float64 {
		return float64(took[min(len(took)-1, int(p*float64(len(took))))].Microseconds()) / 1000
	}
	fmt.Printf("%s: %d replies: p50 %.2f ms, p90 %.2f, p99 %.2f, max %.2f\n", bin, n, q(0.5), q(0.9), q(0.99), q(1))
	return nil
}
