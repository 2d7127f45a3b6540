// Package relay is the client half of "notch-web hook <agent>": it takes
// the hook payload an agent hands a command (on stdin, or, for Codex's
// notify, as the last argument) and POSTs it as it is to the host's hook
// endpoint, <URL>/agents-notch/hooks/<agent>, where the agent's adapter maps
// it.
//
// A hook runs inside the agent's loop, so Send bounds everything by one
// deadline (Deadline, one second in all: reading stdin, connecting,
// sending, the answer) and reports failure only as an error for the caller
// to ignore: the command always exits 0 and writes nothing on stdout
// (Claude Code feeds some hooks' stdout to the model). The one exception is
// Request.Wait (Codex's PermissionRequest, opted in): the host may hold the
// request that long for the board's answer, and Send returns the decision
// for the command to print — parsed (hookjson.ParseDecision) and written
// anew, so only a behavior and a deny's message ever reach the agent;
// anything else the host answers is never returned.
package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/proc"
)

// Deadline bounds a whole Send.
const Deadline = time.Second

// MaxBody bounds a payload: a hook's JSON is a few KiB, a tool's response
// in it can be more; the host refuses what it will not read anyway.
const MaxBody = 1 << 20

// Errors Send reports (wrapped with detail).
var (
	ErrPayload = errors.New("no hook payload")          // stdin or the argument is empty, too large or not JSON
	ErrHost    = errors.New("the host did not take it") // unreachable, too slow, or not a 2xx
)

// Request is one payload to relay.
type Request struct {
	Agent string    // the adapter's name: claude-code, codex, gemini
	URL   string    // the host's base URL, e.g. http://127.0.0.1:7340
	Arg   string    // the payload given as an argument (Codex's notify); "" reads Stdin
	Stdin io.Reader // the payload, when Arg is ""
	// Client sends the request; nil is a client made for one request (no
	// keep-alive, proxies from the environment, which never apply to a
	// loopback host).
	Client *http.Client
	// Wait > 0 lets the host hold the request up to Wait for a decision
	// given on the board (?wait=MS); the deadline grows by as much.
	Wait time.Duration
	// Where is the agent's terminal (read from the hook's environment by
	// the command), sent in the terminal.Header for the host to keep for
	// the session; the zero Where sends none.
	Where terminal.Where
	// Proc is the agent's process (found by the command), sent in the
	// proc.Header for the host to watch; the zero ID sends none.
	Proc proc.ID
}

// Endpoint is the host's hook URL for agent under base.
func Endpoint(base, agent string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" ||
		(u.Path != "" && u.Path != "/") {
		return "", fmt.Errorf("%q is not a base URL like http://127.0.0.1:7340", base)
	}
	return strings.TrimRight(base, "/") + "/agents-notch/hooks/" + url.PathEscape(agent), nil
}

// Send relays one payload within Deadline (plus Wait; or ctx, if sooner).
// The answer is a board decision when Wait asked for one and the host gave
// it, else nil.
func Send(ctx context.Context, r Request) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, Deadline+max(r.Wait, 0))
	defer cancel()
	endpoint, err := Endpoint(r.URL, r.Agent)
	if err != nil {
		return nil, err
	}
	if r.Wait > 0 {
		endpoint += "?wait=" + strconv.FormatInt(r.Wait.Milliseconds(), 10)
	}
	body, err := payload(ctx, r)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHost, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "notch-web-hook")
	if !r.Where.IsZero() {
		req.Header.Set(terminal.Header, r.Where.Encode())
	}
	if !r.Proc.IsZero() {
		req.Header.Set(proc.Header, r.Proc.Encode())
	}
	client := r.Client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{
			Proxy:             http.ProxyFromEnvironment,
			DialContext:       (&net.Dialer{Timeout: Deadline}).DialContext,
			DisableKeepAlives: true,
		}}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHost, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%w: %s answered %s", ErrHost, endpoint, resp.Status)
	}
	if d, ok := hookjson.ParseDecision(answer); r.Wait > 0 && ok {
		return d.JSON(), nil
	}
	return nil, nil
}

// payload is the argument, or stdin read until EOF, the deadline or
// MaxBody; it must be JSON (what is not would only earn a 400).
func payload(ctx context.Context, r Request) ([]byte, error) {
	var body []byte
	if r.Arg != "" {
		body = []byte(r.Arg)
	} else {
		if r.Stdin == nil {
			return nil, fmt.Errorf("%w: nothing on stdin", ErrPayload)
		}
		type read struct {
			b   []byte
			err error
		}
		done := make(chan read, 1)
		// A read cannot be cancelled: if stdin never ends, this goroutine
		// is left to the process's exit, which follows at once.
		go func() {
			b, err := io.ReadAll(io.LimitReader(r.Stdin, MaxBody+1))
			done <- read{b, err}
		}()
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: stdin did not end within %v", ErrPayload, Deadline)
		case got := <-done:
			if got.err != nil {
				return nil, fmt.Errorf("%w: reading stdin: %v", ErrPayload, got.err)
			}
			body = got.b
		}
	}
	switch {
	case len(bytes.TrimSpace(body)) == 0:
		return nil, fmt.Errorf("%w: it is empty", ErrPayload)
	case len(body) > MaxBody:
		return nil, fmt.Errorf("%w: more than %d bytes", ErrPayload, MaxBody)
	case !json.Valid(body):
		return nil, fmt.Errorf("%w: it is not JSON", ErrPayload)
	}
	return body, nil
}
