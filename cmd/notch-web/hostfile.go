package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
)

// hostFile is what a running host says of itself in its DSH home
// (state/agents-notch/host.json), so that a command given only the DSH
// home (devices --dsh-home D, doctor, service status) finds it: its
// address, process and start. Written once it serves, removed as it stops.
type hostFile struct {
	URL        string   `json:"url"`
	PID        int      `json:"pid"`
	Started    string   `json:"started"`
	Version    string   `json:"version"`
	TLS        bool     `json:"tls"`
	AllowHosts []string `json:"allowHosts"`
}

// maxHostFile bounds what is read of host.json.
const maxHostFile = 4 << 10

func hostFilePath(dshHome string) string {
	return filepath.Join(dshHome, "state", "agents-notch", "host.json")
}

// writeHostFile says this host serves at base; the returned func removes
// the file as the host stops (only while it is still this process's).
func writeHostFile(dshHome, base string, tlsOn bool, allowHosts []string, now time.Time) (remove func(), err error) {
	path := hostFilePath(dshHome)
	b, _ := json.Marshal(hostFile{URL: base, PID: os.Getpid(), Started: now.UTC().Format(time.RFC3339), Version: version(), TLS: tlsOn, AllowHosts: allowHosts})
	if err := fsx.WriteFileAtomic(path, append(b, '\n')); err != nil {
		return func() {}, err
	}
	return func() {
		if f, err := readHostFile(dshHome); err == nil && f.PID == os.Getpid() {
			_ = os.Remove(path)
		}
	}, nil
}

// readHostFile reads the host file of a DSH home; its URL is an http(s)
// URL or the file is refused.
func readHostFile(dshHome string) (hostFile, error) {
	b, err := fsx.ReadFileLimit(hostFilePath(dshHome), maxHostFile)
	if err != nil {
		return hostFile{}, err
	}
	var f hostFile
	if err := json.Unmarshal(b, &f); err != nil {
		return hostFile{}, err
	}
	if !strings.HasPrefix(f.URL, "http://") && !strings.HasPrefix(f.URL, "https://") || strings.ContainsAny(f.URL, " \n\t") {
		return hostFile{}, errors.New("host.json: not a host's URL")
	}
	return f, nil
}

// askURL is where a command finds the running host: --url, else
// $NOTCH_URL, else the address the host serving the DSH home wrote
// (--dsh-home, else $DSH_HOME, else ~/.dsh), else the default address.
func askURL(flagURL, flagHome string, getenv func(string) string) string {
	if flagURL != "" || getenv("NOTCH_URL") != "" {
		return hostURL(flagURL, getenv)
	}
	if home, err := dshHomeOf(flagHome, getenv); err == nil {
		if f, err := readHostFile(home); err == nil {
			return f.URL
		}
	}
	return defaultURL()
}
