package push

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/state"
)

// Bounds on a message's text, in bytes (a phone shows about a line of the
// title and three of the body; Web Push payloads must stay small).
const (
	maxTitle = 160
	maxBody  = 400
)

// rowsOf is the board's rows as the rules see them: each labelled
// "machine · project · agent — title", with what it asks (or how it ended)
// and, for a card the board can answer, its offer. machine is this host's
// name on a hub ("" on a board of one machine); another machine's rows
// already carry theirs in the project.
func rowsOf(doc state.Document, cards host.CardSet, machine string, remote func(string) bool) []Row {
	waiting := map[string]host.Card{}
	for _, c := range cards.Cards {
		if c.State == host.CardWaiting && c.Nonce != "" {
			if _, dup := waiting[c.Session]; !dup {
				waiting[c.Session] = c
			}
		}
	}
	rows := make([]Row, 0, len(doc.Sessions))
	for _, s := range doc.Sessions {
		r := Row{ID: s.ID, Status: s.Status, Since: s.Since, Sub: s.Origin == "subagent", Ran: s.Activity != nil}
		var parts []string
		if machine != "" && (remote == nil || !remote(s.ID)) {
			parts = append(parts, machine)
		}
		if s.Project != "" {
			parts = append(parts, s.Project)
		}
		if a, ok := registry.Get(cards.Agents[s.ID]); ok {
			parts = append(parts, a.Display)
		}
		title := strings.Join(parts, " · ")
		if s.Title != "" {
			if title != "" {
				title += " — "
			}
			title += s.Title
		}
		if title == "" {
			title = "a session"
		}
		r.Title = cutLine(title, maxTitle)
		switch s.Status {
		case "attention":
			c, ok := waiting[s.ID]
			switch {
			case ok:
				r.Body = c.Tool
				if c.Detail != "" {
					r.Body += ": " + c.Detail
				}
				r.Offer = &Offer{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Kind: c.Kind, Options: oneChoice(c)}
			case s.Approval != nil:
				r.Body = s.Approval.ToolName
				if s.Approval.Reason != "" {
					r.Body += ": " + s.Approval.Reason
				}
			}
			if r.Body == "" {
				r.Body = "needs you"
			}
		case "error":
			r.Body = "the turn ended in an error"
			r.Reply = cards.Steer[s.ID]
			if w, ok := cards.Whys[s.ID]; ok {
				r.Body = whyBody(w)
			}
		case "done":
			r.Body = "done"
			r.Reply = cards.Steer[s.ID]
		}
		r.Body = cutLine(r.Body, maxBody)
		rows = append(rows, r)
	}
	return rows
}

// whyBody is a failed row's message body: why it stopped ("usage
// limit · resumes 14:05 (UTC)"), then the agent's own words. The reset is
// written in the host's clock, and named: a phone may be elsewhere.
func whyBody(w hookjson.Why) string {
	b := w.Label()
	if w.ResetsMs > 0 {
		at := time.UnixMilli(w.ResetsMs).In(time.Local)
		b += " · resumes " + at.Format("15:04 MST")
	}
	if w.Words != "" {
		b += ": " + w.Words
	}
	return b
}

// cutLine is s as one line of text: hidden characters and line breaks
// become spaces, runs of space one, and it is cut at limit bytes on a rune
// boundary with an ellipsis.
func cutLine(s string, limit int) string {
	s = textrule.Replace(s, ' ')
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= limit {
		return s
	}
	cut := limit - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// oneChoice is a question card's option labels when one press of one of
// them answers the whole card: one question, one option chosen of several;
// else nil.
func oneChoice(c host.Card) []string {
	if c.Kind != host.KindQuestion || len(c.Questions) != 1 || c.Questions[0].Multi {
		return nil
	}
	var out []string
	for _, o := range c.Questions[0].Options {
		out = append(out, o.Label)
	}
	return out
}
