//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is a process under test: notch-web or the floor.
type server struct {
	url  string
	pid  int
	cmd  *exec.Cmd
	http *http.Client
}

// startServer starts notch-web on a free loopback port.
func startServer(ctx context.Context, bin string, args ...string) (*server, error) {
	return startProcess(ctx, bin, append([]string{"--addr", "127.0.0.1:0", "--log-level", "error"}, args...)...)
}

// startFloor starts the floor: this binary as `notch-load floor-server`, a
// process of its own like notch-web.
func startFloor(ctx context.Context, self string) (*server, error) {
	return startProcess(ctx, self, "floor-server", "--addr", "127.0.0.1:0")
}

// startProcess starts a server that prints its URL on the first line of
// stdout, and refuses one that is not on loopback.
func startProcess(ctx context.Context, bin string, args ...string) (*server, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("%s printed no URL: %w", bin, err)
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil || !isLoopback(u.Hostname()) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("refusing a non-loopback target %q", line)
	}
	go io.Copy(io.Discard, out)
	return &server{
		url: u.Scheme + "://" + u.Host, pid: cmd.Process.Pid, cmd: cmd,
		http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8}},
	}, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

func (s *server) post(path, body string) error {
	return s.send(path, "application/json", strings.NewReader(body))
}

// publish hands the floor one frame to fan out.
func (s *server) publish(frame []byte) error {
	return s.send("/publish", "application/octet-stream", bytes.NewReader(frame))
}

func (s *server) send(path, contentType string, body io.Reader) error {
	res, err := s.http.Post(s.url+path, contentType, body)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return fmt.Errorf("POST %s: %s %s", path, res.Status, data)
	}
	return nil
}

type health struct {
	Streams int   `json:"streams"`
	Renders int64 `json:"renders"`
	Drops   int64 `json:"drops"`
}

func (s *server) health() (health, error) {
	var h health
	res, err := s.http.Get(s.url + "/healthz")
	if err != nil {
		return h, err
	}
	defer res.Body.Close()
	return h, json.NewDecoder(res.Body).Decode(&h)
}

// ---- process stats (Linux /proc) ----

type pstat struct{ cpuMs, rssKiB float64 }

func procStats(pid int) (pstat, error) {
	var p pstat
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return p, err
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	if len(f) < 13 {
		return p, errors.New("short /proc stat")
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	p.cpuMs = (ut + st) * 1000 / clockTicks
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return p, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			p.rssKiB, _ = strconv.ParseFloat(strings.Fields(line)[1], 64)
		}
	}
	return p, nil
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100
