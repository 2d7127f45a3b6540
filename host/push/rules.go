package push

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The rules, as a pure step over the rows so tests drive them with a clock
// of their own (docs/pushes.md):
//
//   - a row is pushed for the state it is in (needs you, failed, finished)
//     once it has stayed in it for the delay, and at most once per state
//     change (a state is its status and since);
//   - not while anybody is looking at a board (a tab visible and focused,
//     on any device): what was due then was seen, and is not sent later;
//   - rows already in their state when the host started are not pushed;
//   - to each channel only the kinds it sends, and nothing in its quiet
//     hours (dropped, not deferred);
//   - a channel that sent less than burstGap ago collects what comes due
//     and sends it as one summary at the gap's end (one alone goes as it
//     is);
//   - what was sent is withdrawn the moment the row leaves that state (it
//     was answered, in the terminal or anywhere) or the row goes.

// burstGap is the least time between two messages to one channel: more
// comes due inside it and is sent as one summary.
const burstGap = 3 * time.Second

// maxSummary is how many rows a summary names before "and N more".
const maxSummary = 5

// Row is one row as the rules see it.
type Row struct {
	ID     string
	Status string // state's status words
	Since  int64  // ms it entered Status
	Sub    bool   // a subagent's row: pushed only when it needs you
	Title  string // the message's title (label.go)
	Body   string // what it asks, or how it ended
	Offer  *Offer // an answerable permission card, nil for none
	Reply  bool   // the row takes a Reply from the board (host.CardSet.Steer): a settled row's push links to it
	Ran    bool   // it ran a turn (a new session's row starts done: not finished)
}

// Offer is a card a push may answer: what Mint needs. Kind is the card's
// (host.KindPermission, KindQuestion, KindPlan): it decides the buttons.
type Offer struct {
	Session, Call, Nonce, Kind string
	// Options are a question card's option labels when its one question
	// is answered by one option (not a multi-select, not several
	// questions): its push offers the first of them as buttons.
	Options []string
}

// kindOf is the message kind of a row's state, "" for none.
func kindOf(r Row) string {
	switch r.Status {
	case "attention":
		return KindNeedsYou
	case "error":
		if !r.Sub {
			return KindFailed
		}
	case "done":
		if !r.Sub && r.Ran {
			return KindFinished
		}
	}
	return ""
}

// tracked is what the rules remember of a row.
type tracked struct {
	status string
	since  int64
	kind   string
	due    time.Time // zero: nothing due (sent, seen, or no kind)
	sentTo []int     // channels it was sent to (alone or in a summary)
}

// chanRule is what the rules need of a channel.
type chanRule struct {
	key     string // the channel's identity (channelKey)
	cfg     ChannelConfig
	last    time.Time // last send
	pending []pendingMsg
	flushAt time.Time // when pending goes (zero: nothing pending)
	// summary is what the summary on screen names and still announces:
	// a later summary replaces it (one tag), so it names these too, and
	// it is withdrawn once none is left.
	summary []pendingMsg
}

type pendingMsg struct {
	row Row
	msg Message
}

// op is one thing to do on a channel.
type op struct {
	ch       int
	msg      *Message // send this
	withdraw string   // or withdraw this tag
	rows     []string // the rows a send is about (log)
}

// rules is the state the step keeps.
type rules struct {
	delay   time.Duration
	gap     time.Duration // burstGap unless told
	start   time.Time
	rows    map[string]*tracked
	chans   []*chanRule
	message func(Row, string, time.Time) Message
}

func newRules(delay time.Duration, start time.Time, chans []ChannelConfig, message func(Row, string, time.Time) Message) *rules {
	r := &rules{delay: delay, gap: burstGap, start: start, rows: map[string]*tracked{}, message: message}
	for _, c := range chans {
		r.chans = append(r.chans, &chanRule{cfg: c})
	}
	return r
}

// reconfigure makes the channels keys (with cfgs) and the delay delay: a
// channel that stays keeps what it sent and has pending; one that went is
// forgotten (what it sent can no longer be withdrawn); a row not yet due
// comes due at its state's start plus the new delay.
func (r *rules) reconfigure(delay time.Duration, keys []string, cfgs []ChannelConfig) {
	old := map[string]int{}
	for i, c := range r.chans {
		old[c.key] = i
	}
	moved := make([]int, len(r.chans))
	for i := range moved {
		moved[i] = -1
	}
	chans := make([]*chanRule, len(keys))
	for j, k := range keys {
		if i, ok := old[k]; ok {
			chans[j], moved[i] = r.chans[i], j
			chans[j].cfg = cfgs[j]
			continue
		}
		chans[j] = &chanRule{key: k, cfg: cfgs[j]}
	}
	for _, t := range r.rows {
		sent := t.sentTo[:0]
		for _, i := range t.sentTo {
			if moved[i] >= 0 {
				sent = append(sent, moved[i])
			}
		}
		t.sentTo = sent
		if !t.due.IsZero() {
			t.due = t.due.Add(delay - r.delay)
		}
	}
	r.chans, r.delay = chans, delay
}

// step applies the rules at now to the rows the board has; looking says
// whether a board is being looked at. It returns what to do, and when the
// next step is due by time alone (zero: only a change can make one due).
func (r *rules) step(now time.Time, rows []Row, looking bool) (ops []op, next time.Time) {
	seen := make(map[string]bool, len(rows))
	for _, row := range rows {
		seen[row.ID] = true
		t := r.rows[row.ID]
		if t != nil && t.status == row.Status && t.since == row.Since {
			continue
		}
		if t != nil {
			ops = append(ops, r.withdraw(row.ID, t)...)
		}
		t = &tracked{status: row.Status, since: row.Since, kind: kindOf(row)}
		entered := time.UnixMilli(row.Since)
		if t.kind != "" && !entered.Before(r.start) {
			t.due = entered.Add(r.delay)
		}
		r.rows[row.ID] = t
	}
	for id, t := range r.rows {
		if !seen[id] {
			ops = append(ops, r.withdraw(id, t)...)
			delete(r.rows, id)
		}
	}
	byID := make(map[string]Row, len(rows))
	for _, row := range rows {
		byID[row.ID] = row
	}
	for id, t := range r.rows {
		if t.due.IsZero() {
			continue
		}
		if now.Before(t.due) {
			next = earliest(next, t.due)
			continue
		}
		t.due = time.Time{}
		if looking {
			continue // seen on the board
		}
		row := byID[id]
		for i, c := range r.chans {
			if !c.cfg.sends(t.kind) || c.cfg.Quiet.In(now) {
				continue
			}
			t.sentTo = append(t.sentTo, i)
			c.pending = append(c.pending, pendingMsg{row: row, msg: r.message(row, t.kind, now)})
			if c.flushAt.IsZero() {
				c.flushAt = maxTime(now, c.last.Add(r.gap))
			}
		}
	}
	for i, c := range r.chans {
		if c.flushAt.IsZero() {
			continue
		}
		if now.Before(c.flushAt) {
			next = earliest(next, c.flushAt)
			continue
		}
		ops = append(ops, r.flush(i, c, now))
	}
	return ops, next
}

// flush sends a channel's pending messages: one as it is, more as one
// summary — which replaces the summary on screen, so it names that one's
// rows still as announced too.
func (r *rules) flush(i int, c *chanRule, now time.Time) op {
	p := c.pending
	c.pending, c.flushAt, c.last = nil, time.Time{}, now
	if len(p) == 1 {
		return op{ch: i, msg: &p[0].msg, rows: []string{p[0].row.ID}}
	}
	c.summary = append(c.summary, p...)
	m := summaryOf(c.summary, now)
	ids := make([]string, len(c.summary))
	for j, x := range c.summary {
		ids[j] = x.row.ID
	}
	return op{ch: i, msg: &m, rows: ids}
}

// withdraw takes back what was sent about row id (alone, or the summary it
// was in once none of that summary's rows is still as announced).
func (r *rules) withdraw(id string, t *tracked) []op {
	if len(t.sentTo) == 0 {
		return nil
	}
	var ops []op
	for _, i := range t.sentTo {
		c := r.chans[i]
		if dropPending(c, id) {
			continue // never sent: nothing to take back
		}
		if j := slices.IndexFunc(c.summary, func(p pendingMsg) bool { return p.row.ID == id }); j >= 0 {
			c.summary = slices.Delete(c.summary, j, j+1)
			if len(c.summary) == 0 {
				ops = append(ops, op{ch: i, withdraw: SummaryTag})
			}
			continue
		}
		ops = append(ops, op{ch: i, withdraw: id})
	}
	t.sentTo = nil
	return ops
}

// dropPending removes row id from c's pending messages, reporting whether
// it was there.
func dropPending(c *chanRule, id string) bool {
	for j, p := range c.pending {
		if p.row.ID == id {
			c.pending = append(c.pending[:j], c.pending[j+1:]...)
			if len(c.pending) == 0 {
				c.flushAt = time.Time{}
			}
			return true
		}
	}
	return false
}

// SummaryTag is the tag of a summary message.
const SummaryTag = "summary"

// summaryOf is one message for several rows.
func summaryOf(p []pendingMsg, now time.Time) Message {
	counts := map[string]int{}
	for _, x := range p {
		counts[x.msg.Kind]++
	}
	var parts []string
	for _, k := range []struct{ kind, one, many string }{
		{KindNeedsYou, "1 needs you", "%d need you"},
		{KindFailed, "1 failed", "%d failed"},
		{KindFinished, "1 finished", "%d finished"},
	} {
		switch n := counts[k.kind]; {
		case n == 1:
			parts = append(parts, k.one)
		case n > 1:
			parts = append(parts, fmt.Sprintf(k.many, n))
		}
	}
	var names []string
	for j, x := range p {
		if j == maxSummary {
			names = append(names, fmt.Sprintf("and %d more", len(p)-maxSummary))
			break
		}
		names = append(names, x.msg.Title)
	}
	return Message{
		Tag: SummaryTag, Kind: KindSummary, At: now, URL: p[0].msg.URL,
		Title: fmt.Sprintf("%d sessions: %s", len(p), strings.Join(parts, ", ")),
		Body:  cutLine(strings.Join(names, "; "), maxBody),
	}
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
