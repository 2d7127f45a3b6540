package push

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Ntfy publishes to an ntfy topic (https://docs.ntfy.sh/publish/): the
// title, the body, tags and a priority by kind, the board as the click
// target and, for a permission card, "Allow once" / "Deny" http actions
// that post a capability back to the host (a question's first two options
// and Open; a settled row's Reply, a view action that opens the board's
// reply box). Each message carries a sequence
// id derived from its tag, so ntfy 2.16 and later replace a row's earlier
// message and clear it when it is answered (Withdraw); an older server
// ignores the id and answers the clear with 404, which is logged.
type Ntfy struct {
	cfg    NtfyConfig
	client *http.Client
}

// NewNtfy returns the channel for cfg; client nil is a client with a
// bounded timeout. It never follows a redirect (noRedirects).
func NewNtfy(cfg NtfyConfig, client *http.Client) *Ntfy {
	return &Ntfy{cfg: cfg, client: noRedirects(client)}
}

// Name is the entry's name.
func (n *Ntfy) Name() string { return n.cfg.Name }

// ntfyAction is one of ntfy's action buttons (JSON form).
type ntfyAction struct {
	Action  string            `json:"action"`
	Label   string            `json:"label"`
	URL     string            `json:"url"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	Clear   bool              `json:"clear,omitempty"`
}

// maxNtfyActions is how many action buttons ntfy takes on one message.
const maxNtfyActions = 3

// ntfyKinds are a kind's tags (ntfy shows known tags as emoji) and
// priority.
var ntfyKinds = map[string]struct {
	tags     string
	priority string
}{
	KindNeedsYou: {"bell", "high"},
	KindFailed:   {"x", "high"},
	KindFinished: {"white_check_mark", "default"},
	KindSummary:  {"bell", "high"},
	KindTest:     {"test_tube", "default"},
}

// request builds the publish request for m (tests read it: the golden).
func (n *Ntfy) request(ctx context.Context, m Message) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.cfg.URL, strings.NewReader(m.Body))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Title", m.Title)
	if k, ok := ntfyKinds[m.Kind]; ok {
		h.Set("Tags", k.tags)
		h.Set("Priority", k.priority)
	}
	if m.URL != "" {
		h.Set("Click", m.URL)
	}
	h.Set("X-Sequence-ID", sequenceID(m.Tag))
	if m.Mint != nil {
		var acts []ntfyAction
		options := false
		for _, a := range m.Mint("ntfy:"+n.cfg.Name, "") {
			if a.Cap == "" { // a link: the app opens it
				acts = append(acts, ntfyAction{Action: "view", Label: a.Label, URL: a.URL})
				continue
			}
			options = options || strings.HasPrefix(a.ID, "option-")
			body, _ := json.Marshal(map[string]string{"cap": a.Cap})
			acts = append(acts, ntfyAction{Action: "http", Label: a.Label, URL: a.URL, Method: http.MethodPost,
				Headers: map[string]string{"Content-Type": "application/json"}, Body: string(body), Clear: true})
		}
		// A question's options are its first two: ntfy shows three
		// buttons, the third opens the board, where all of them are.
		if options && m.URL != "" && len(acts) < maxNtfyActions {
			acts = append(acts, ntfyAction{Action: "view", Label: "Open", URL: m.URL})
		}
		if len(acts) > 0 {
			b, err := json.Marshal(acts)
			if err != nil {
				return nil, err
			}
			h.Set("Actions", string(b))
		}
	}
	n.auth(req)
	return req, nil
}

func (n *Ntfy) auth(req *http.Request) {
	if n.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+n.cfg.Token)
	}
}

// Send publishes m.
func (n *Ntfy) Send(ctx context.Context, m Message) error {
	req, err := n.request(ctx, m)
	if err != nil {
		return err
	}
	return n.do(req)
}

// Withdraw clears the message tagged tag (ntfy ≥ 2.16: marked read and
// dismissed from the phone's drawer).
func (n *Ntfy) Withdraw(ctx context.Context, tag string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, strings.TrimRight(n.cfg.URL, "/")+"/"+sequenceID(tag)+"/clear", nil)
	if err != nil {
		return err
	}
	n.auth(req)
	return n.do(req)
}

func (n *Ntfy) do(req *http.Request) error {
	_, err := send(n.client, req, false)
	return err
}

// send does req and reads at most a small answer. A status other than 2xx
// (or 404, when gone is true: what is taken back may be gone already) is
// an error naming only the host: a topic or a webhook's URL is a secret.
func send(client *http.Client, req *http.Request, gone bool) ([]byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return nil, redactURL(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 && !(gone && resp.StatusCode == http.StatusNotFound) {
		return nil, fmt.Errorf("%s answered %s", req.URL.Host, resp.Status)
	}
	return out, nil
}

// sequenceID is a tag as an ntfy sequence id: a row id may hold any
// character, an id only [-_A-Za-z0-9]; a hash keeps it stable and short.
func sequenceID(tag string) string {
	sum := sha256.Sum256([]byte(tag))
	return "notch-" + hex.EncodeToString(sum[:12])
}

// redactURL keeps a transport error from carrying the URL (an ntfy topic
// or a webhook's URL is a secret): the operation, the host and the cause.
func redactURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		host := ""
		if u, perr := url.Parse(ue.URL); perr == nil {
			host = u.Host
		}
		return fmt.Errorf("%s %s: %w", ue.Op, host, ue.Err)
	}
	return err
}

// jsonPost posts body as JSON and reads at most a small answer.
func jsonPost(ctx context.Context, client *http.Client, method, url string, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return send(client, req, false)
}
