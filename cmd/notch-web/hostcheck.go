package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/notch-web/notch-web/adapters/install"
	"github.com/notch-web/notch-web/internal/textrule"
)

// hostCheckTimeout bounds how long status waits for a host to answer.
const hostCheckTimeout = time.Second

// hookBases are the host base URLs the hooks in st point to, in order,
// distinct: an http hook's URL less the hook path, a command's --url, else
// (a command without --url, Codex's notify) what the command would use now
// ($NOTCH_URL, else the default; the agent's own environment may differ).
func hookBases(st []install.Installed, getenv func(string) string) []string {
	var out []string
	add := func(b string) {
		b = strings.TrimRight(b, "/")
		for _, o := range out {
			if o == b {
				return
			}
		}
		out = append(out, b)
	}
	for _, s := range st {
		for _, t := range s.Targets {
			if strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://") {
				if i := strings.Index(t, "/agents-notch/hooks/"); i > 0 {
					add(t[:i])
				}
				continue
			}
			add(hostURL(commandURL(t), getenv))
		}
	}
	return out
}

// commandURL is the --url a hook command passes ("" when none).
func commandURL(cmd string) string {
	f := strings.Fields(cmd)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "--url" {
			return strings.Trim(f[i+1], `'"`)
		}
	}
	return ""
}

// hostAnswer says whether a notch-web answers at base: GET base/healthz
// within hostCheckTimeout, a 200 with {"ok": true}.
func hostAnswer(ctx context.Context, base string) (version string, err error) {
	ctx, cancel := context.WithTimeout(ctx, hostCheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthz", nil)
	if err != nil {
		return "", err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var h struct {
		OK      bool   `json:"ok"`
		Version string `json:"version"`
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if res.StatusCode != http.StatusOK || json.Unmarshal(body, &h) != nil || !h.OK {
		return "", fmt.Errorf("something answers (%s), but not notch-web's /healthz", res.Status)
	}
	return h.Version, nil
}

// printHosts says, for each host an agent's hooks point to, whether a
// notch-web answers there — on a line of its own, "<agent> host: …", not
// under one of the agent's files: the hooks of an agent whose host is not
// running reach nothing, and the agent carries on without a word.
func printHosts(ctx context.Context, w io.Writer, agent string, bases []string, seen map[string]string) {
	for _, b := range bases {
		line, ok := seen[b]
		if !ok {
			v, err := hostAnswer(ctx, b)
			switch {
			case err != nil:
				line = noHost(b, err) + ": its hooks reach nothing. Start notch-web there, or install the hooks again with --url pointing at the one you run"
			case v != "":
				line = fmt.Sprintf("notch-web %s answers at %s", textrule.Escape(v, ""), textrule.Escape(b, ""))
			default:
				line = "notch-web answers at " + textrule.Escape(b, "")
			}
			seen[b] = line
		}
		fmt.Fprintf(w, "%s host: %s\n", agent, line)
	}
}

// noHost begins the line that says no notch-web answers at base.
func noHost(base string, err error) string {
	return fmt.Sprintf("no notch-web answers at %s (%s)", textrule.Escape(base, ""), textrule.Escape(shortErr(err), ""))
}

// checkInstalledHost says, after an install, when no notch-web answers at
// the URL the hooks were given: the install stands, and they reach nothing
// until one runs there.
func checkInstalledHost(ctx context.Context, w io.Writer, base string) {
	if _, err := hostAnswer(ctx, base); err != nil {
		fmt.Fprintf(w, "host: %s: the hooks are installed, and reach nothing until notch-web runs there (or install again with --url pointing at the one you run)\n", noHost(base, err))
	}
}

// shortErr is an HTTP client error without Go's "Get \"URL\": " prefix.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && strings.HasPrefix(s, "Get ") {
		s = s[i+2:]
	}
	return s
}
