package state

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/textrule"
)

// Limits on the text of a row, shared by events (validated at the door)
// and followed documents (sanitised on reading).
const (
	MaxTitle   = 1000 // title, project
	MaxCwd     = 4096 // cwd
	MaxTool    = 200  // a tool name, an activity label
	MaxReason  = 4096 // an approval's reason
	MaxWord    = 64   // status, identity, origin, activity kind, retire, plugin
	maxURL     = 2048
	replaceCtl = "\uFFFD"
)

// Sanitize makes a document read from outside — another host's state.json
// in follow mode, this host's own on restore — safe to publish and draw:
// every string goes through the one text rule (CleanText) and is cut to the length an event could carry, the
// rows are cut to MaxSessions, the settings are clamped, the context is
// normalised (the same rules as the host's own snapshot, so the published
// document and the board agree), and a URL that is not an absolute http(s)
// URL becomes null. It shares no memory with d.
func Sanitize(d Document) Document {
	d.WallMs = clampAt(d.WallMs)
	d.Plugin = clean(d.Plugin, MaxWord)
	d.Retire = clean(d.Retire, MaxWord)
	d.FinishedURL = cleanURL(d.FinishedURL)
	d.OpenURL = cleanURL(d.OpenURL)
	d.Context = normalContext(d.Context)
	d.Settings = d.Settings.Clamped()
	d.Summary.Status = clean(d.Summary.Status, MaxWord)
	n := min(len(d.Sessions), MaxSessions)
	ss := make([]Session, n)
	for i, s := range d.Sessions[:n] {
		s = s.clone()
		s.ID = clean(s.ID, MaxSessionID)
		s.Title = clean(s.Title, MaxTitle)
		s.Project = clean(s.Project, MaxTitle)
		s.Cwd = clean(s.Cwd, MaxCwd)
		s.Status = clean(s.Status, MaxWord)
		s.Identity = clean(s.Identity, MaxWord)
		s.Origin = clean(s.Origin, MaxWord)
		s.ParentSession = clean(s.ParentSession, MaxSessionID)
		s.Since = clampAt(s.Since)
		if s.ApprovedAt != nil {
			*s.ApprovedAt = clampAt(*s.ApprovedAt)
		}
		if s.Activity != nil {
			s.Activity.Kind = clean(s.Activity.Kind, MaxWord)
			s.Activity.Label = clean(s.Activity.Label, MaxTool)
		}
		if s.Approval != nil {
			s.Approval.ToolName = clean(s.Approval.ToolName, MaxTool)
			s.Approval.Reason = clean(s.Approval.Reason, MaxReason)
		}
		ss[i] = s
	}
	d.Sessions = ss
	return d
}

// clampAt keeps a time of a mirrored document in 0 … MaxAt: a row is not
// dropped for one, and the board never draws a time it cannot show.
func clampAt(ms int64) int64 { return min(max(ms, 0), MaxAt) }

// clean applies the one text rule (CleanText) and cuts s to at most limit
// bytes on a rune boundary, marking the cut with "…".
func clean(s string, limit int) string { return Cut(CleanText(s), limit) }

// CleanText is the one text rule for a string that becomes part of a row,
// whichever route it came by (an event, a hook, a followed or restored
// state.json): a tab becomes a space, and every other character
// internal/textrule hides (control, bidi, zero-width) and invalid UTF-8
// becomes U+FFFD, so a hostile character is seen rather than hidden or
// obeyed.
func CleanText(s string) string {
	if !textrule.Has(s) {
		return s
	}
	return textrule.Replace(strings.ReplaceAll(s, "\t", " "), utf8.RuneError)
}

// cleanText applies CleanText to every text field of an event (ids are
// refused by Validate, never cleaned).
func (e Event) cleanText() Event {
	e.Title, e.Project, e.Cwd = CleanText(e.Title), CleanText(e.Project), CleanText(e.Cwd)
	e.Tool, e.Reason = CleanText(e.Tool), CleanText(e.Reason)
	return e
}

// Cut bounds s to at most limit bytes, cutting on a rune boundary and
// ending with "…" when anything was cut.
func Cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const ell = "…"
	end := max(0, limit-len(ell))
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + ell
}

func cleanURL(p *string) *string {
	if p == nil {
		return nil
	}
	u, err := url.Parse(*p)
	if err != nil || len(*p) > maxURL || HasControl(*p) || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	v := *p
	return &v
}
