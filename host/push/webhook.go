package push

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Webhook posts each message to a URL in one of three shapes:
//
//   - json: {"event":"push", "kind", "tag", "title", "body", "url", "at",
//     "actions":[{"id","label","url","cap"}]} (an action without "cap"
//     is a link: a settled row's Reply opens the board's reply box) and, when it is answered,
//     {"event":"withdrawn","tag"} — for people's own automations (the
//     actions' capabilities answer the card, like the board's buttons);
//   - slack: an incoming webhook's {"text"} with the title in bold and a
//     link to the board (Slack's escaping: & < >); it cannot be taken back;
//   - discord: a webhook's {"content"} with mentions off; posted with
//     ?wait=true so the message's id is known, and deleted when answered.
type Webhook struct {
	cfg    WebhookConfig
	client *http.Client

	mu      sync.Mutex
	posted  map[string]string // discord: tag → message id
	ordered []string
}

// maxPosted bounds the discord message ids kept for withdrawal.
const maxPosted = 256

// NewWebhook returns the channel for cfg; client nil is a client with a
// bounded timeout. It never follows a redirect (noRedirects).
func NewWebhook(cfg WebhookConfig, client *http.Client) *Webhook {
	return &Webhook{cfg: cfg, client: noRedirects(client), posted: map[string]string{}}
}

// Name is the entry's name.
func (w *Webhook) Name() string { return w.cfg.Name }

type hookAction struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	URL   string `json:"url"`
	Cap   string `json:"cap,omitempty"` // none: a link to open (Reply)
}

type hookJSON struct {
	Event   string       `json:"event"`
	Kind    string       `json:"kind,omitempty"`
	Tag     string       `json:"tag"`
	Title   string       `json:"title,omitempty"`
	Body    string       `json:"body,omitempty"`
	URL     string       `json:"url,omitempty"`
	At      string       `json:"at,omitempty"`
	Actions []hookAction `json:"actions,omitempty"`
}

type slackJSON struct {
	Text string `json:"text"`
}

type discordJSON struct {
	Content         string          `json:"content"`
	AllowedMentions discordMentions `json:"allowed_mentions"`
}

type discordMentions struct {
	Parse []string `json:"parse"`
}

// body is what Send posts for m (tests read it: the golden).
func (w *Webhook) body(m Message) any {
	switch w.cfg.Shape {
	case ShapeSlack:
		text := "*" + slackEscape(m.Title) + "*\n" + slackEscape(m.Body)
		if m.URL != "" {
			text += "\n<" + slackEscape(m.URL) + "|Open the board>"
		}
		return slackJSON{Text: text}
	case ShapeDiscord:
		text := "**" + discordEscape(m.Title) + "**\n" + discordEscape(m.Body)
		if m.URL != "" {
			text += "\n<" + m.URL + ">"
		}
		return discordJSON{Content: text, AllowedMentions: discordMentions{Parse: []string{}}}
	}
	out := hookJSON{Event: "push", Kind: m.Kind, Tag: m.Tag, Title: m.Title, Body: m.Body, URL: m.URL}
	if !m.At.IsZero() {
		out.At = m.At.UTC().Format(time.RFC3339)
	}
	if m.Mint != nil {
		for _, a := range m.Mint("webhook:"+w.cfg.Name, "") {
			out.Actions = append(out.Actions, hookAction(a))
		}
	}
	return out
}

// Send posts m.
func (w *Webhook) Send(ctx context.Context, m Message) error {
	url := w.cfg.URL
	if w.cfg.Shape == ShapeDiscord {
		url = withQuery(url, "wait=true")
	}
	out, err := jsonPost(ctx, w.client, http.MethodPost, url, w.body(m))
	if err != nil || w.cfg.Shape != ShapeDiscord {
		return err
	}
	var posted struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(out, &posted) == nil && posted.ID != "" && isSnowflake(posted.ID) {
		w.remember(m.Tag, posted.ID)
	}
	return nil
}

// Withdraw: the json shape is told; a discord message is deleted; slack's
// cannot be taken back.
func (w *Webhook) Withdraw(ctx context.Context, tag string) error {
	switch w.cfg.Shape {
	case ShapeJSON:
		_, err := jsonPost(ctx, w.client, http.MethodPost, w.cfg.URL, hookJSON{Event: "withdrawn", Tag: tag})
		return err
	case ShapeDiscord:
		w.mu.Lock()
		id, ok := w.posted[tag]
		delete(w.posted, tag)
		w.mu.Unlock()
		if !ok {
			return nil
		}
		base, query, _ := strings.Cut(w.cfg.URL, "?")
		u := strings.TrimRight(base, "/") + "/messages/" + id
		if query != "" {
			u += "?" + query
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u, nil)
		if err != nil {
			return err
		}
		_, err = send(w.client, req, true)
		return err
	}
	return nil
}

func (w *Webhook) remember(tag, id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.posted[tag]; !ok {
		w.ordered = append(w.ordered, tag)
	}
	w.posted[tag] = id
	for len(w.ordered) > maxPosted {
		delete(w.posted, w.ordered[0])
		w.ordered = w.ordered[1:]
	}
}

func withQuery(u, q string) string {
	if strings.Contains(u, "?") {
		return u + "&" + q
	}
	return u + "?" + q
}

func isSnowflake(s string) bool {
	if len(s) == 0 || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// slackEscape is Slack's escaping of message text: &, < and > (so a title
// can neither link nor mention).
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// discordEscape backslash-escapes Discord's markdown, so a title stays
// text (mentions are off in allowed_mentions).
func discordEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\*_~|>#[]<`+"`", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
