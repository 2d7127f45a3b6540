package web

import (
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/web/templates"
)

// historyReply is the History page as JSON (GET /agents-notch/history with
// Accept: application/json): the tables behind its charts and its list,
// for scripts and screen readers. Times are ms since the epoch (0: not
// yet); durations ms; a cost is null where no agent reported one.
type historyReply struct {
	OK bool `json:"ok"`
	// Off: this notch-web keeps no history. Problem: why it is unavailable.
	Off      bool          `json:"off,omitempty"`
	Problem  string        `json:"problem,omitempty"`
	Day      string        `json:"day,omitempty"` // YYYY-MM-DD, local: the timeline's and the headline's
	Headline *headlineJSON `json:"headline,omitempty"`
	Timeline []spanJSON    `json:"timeline"`
	Days     []dayJSON     `json:"days"`
	Total    int           `json:"total"` // sessions matching the query
	Sessions []sessionJSON `json:"sessions"`
}

type headlineJSON struct {
	WaitingMs      int64  `json:"waitingMs"`
	Waits          int    `json:"waits"`
	MedianWaitMs   int64  `json:"medianWaitMs"`
	LongestWaitMs  int64  `json:"longestWaitMs"`
	LongestMachine string `json:"longestMachine"`
	LongestSession string `json:"longestSession"`
	LongestTitle   string `json:"longestTitle"`
}

type spanJSON struct {
	Machine string `json:"machine"`
	Session string `json:"session"`
	Title   string `json:"title"`
	Status  string `json:"status"`
	FromMs  int64  `json:"fromMs"`
	ToMs    int64  `json:"toMs"` // 0: still
}

type dayJSON struct {
	Day       string   `json:"day"`
	Sessions  int      `json:"sessions"`
	Turns     int      `json:"turns"`
	WorkingMs int64    `json:"workingMs"`
	WaitingMs int64    `json:"waitingMs"`
	Tokens    int64    `json:"tokens"` // context tokens at the turns' ends
	CostUSD   *float64 `json:"costUsd"`
	// Agents are the day's tokens used and cost reported per agent, as
	// the page's two charts draw them (store.AgentDays): null where the
	// agent told none, never 0.
	Agents []agentUseJSON `json:"agents"`
}

type agentUseJSON struct {
	Agent   string   `json:"agent"`
	Tokens  *int64   `json:"tokens"`
	CostUSD *float64 `json:"costUsd"`
}

type sessionJSON struct {
	Machine       string       `json:"machine"`
	ID            string       `json:"id"`
	Agent         string       `json:"agent"`
	Project       string       `json:"project"`
	Cwd           string       `json:"cwd"`
	Title         string       `json:"title"`
	Parent        string       `json:"parent"`
	StartedMs     int64        `json:"startedMs"`
	EndedMs       int64        `json:"endedMs"`
	Outcome       string       `json:"outcome"`
	Turns         int          `json:"turns"`
	WorkingMs     int64        `json:"workingMs"`
	WaitingMs     int64        `json:"waitingMs"`
	ContextTokens int64        `json:"contextTokens"`
	CostUSD       *float64     `json:"costUsd"`
	TurnList      []turnJSON   `json:"turnList"`
	Answers       []answerJSON `json:"answers"`
}

type turnJSON struct {
	Seq           int            `json:"seq"`
	StartedMs     int64          `json:"startedMs"`
	EndedMs       int64          `json:"endedMs"`
	Outcome       string         `json:"outcome"`
	Tools         map[string]int `json:"tools"`
	Errors        int            `json:"errors"`
	ContextTokens int64          `json:"contextTokens"`
	CostUSD       *float64       `json:"costUsd"`
}

type answerJSON struct {
	Call       string `json:"call"`
	Tool       string `json:"tool"`
	AskedMs    int64  `json:"askedMs"`
	AnsweredMs int64  `json:"answeredMs"`
	WaitedMs   int64  `json:"waitedMs"`
	By         string `json:"by"`
	Device     string `json:"device"` // "" for none known
	Outcome    string `json:"outcome"`
}

// historyJSON is v as JSON; empty lists are [], never null.
func historyJSON(v templates.HistoryView) historyReply {
	r := historyReply{OK: !v.Off && v.Problem == "", Off: v.Off, Problem: v.Problem,
		Timeline: []spanJSON{}, Days: []dayJSON{}, Sessions: []sessionJSON{}}
	if !r.OK {
		return r
	}
	h := v.Headline
	r.Day = v.Day.Format("2006-01-02")
	r.Headline = &headlineJSON{h.WaitingMs, h.Waits, h.MedianWaitMs, h.LongestWaitMs, h.LongestMachine, h.LongestSession, h.LongestTitle}
	for _, s := range v.Spans {
		r.Timeline = append(r.Timeline, spanJSON{s.Machine, s.Session, s.Title, s.Status, s.FromMs, s.ToMs})
	}
	byDay := map[string][]agentUseJSON{}
	for _, d := range v.ByAgent {
		day := d.Day.Format("2006-01-02")
		for _, u := range d.Agents {
			byDay[day] = append(byDay[day], agentUseJSON{u.Agent, u.Tokens, u.CostUSD})
		}
	}
	for _, d := range v.Bars {
		day := d.Day.Format("2006-01-02")
		agents := byDay[day]
		if agents == nil {
			agents = []agentUseJSON{}
		}
		r.Days = append(r.Days, dayJSON{day, d.Sessions, d.Turns, d.WorkingMs, d.WaitingMs, d.Tokens, d.CostUSD, agents})
	}
	r.Total = v.Total
	for _, hs := range v.Sessions {
		s := hs.Session
		j := sessionJSON{s.Machine, s.ID, s.Agent, s.Project, s.Cwd, s.Title, s.Parent, s.StartedMs, s.EndedMs, s.Outcome,
			s.Turns, s.WorkingMs, s.WaitingMs, s.ContextTokens, s.CostUSD, []turnJSON{}, []answerJSON{}}
		for _, t := range hs.Turns {
			tools := t.Tools
			if tools == nil {
				tools = map[string]int{}
			}
			j.TurnList = append(j.TurnList, turnJSON{t.Seq, t.StartedMs, t.EndedMs, t.Outcome, tools, t.Errors, t.ContextTokens, t.CostUSD})
		}
		for _, a := range hs.Answers {
			j.Answers = append(j.Answers, answerJSON{a.Call, a.Tool, a.AskedMs, a.AnsweredMs, waitedMs(a), a.By, a.Device, a.Outcome})
		}
		r.Sessions = append(r.Sessions, j)
	}
	return r
}

// waitedMs is how long an answer kept its agent waiting (0: unanswered).
func waitedMs(a store.Answer) int64 {
	if a.AnsweredMs == 0 || a.AskedMs == 0 {
		return 0
	}
	return max(a.AnsweredMs-a.AskedMs, 0)
}

// rowHistoryReply is a row's short history as JSON (getRowHistory), the
// same entries the ▸ panel shows, oldest first.
type rowHistoryReply struct {
	OK      bool   `json:"ok"`
	Session string `json:"session"`
	// Known: the board holds the row; Lasting: its entries were read from
	// the history file (the row came back with the host, or is another
	// machine's on a hub), not the host's memory.
	Known   bool             `json:"known"`
	Lasting bool             `json:"lasting"`
	Events  []rowHistoryItem `json:"events"`
}

type rowHistoryItem struct {
	AtMs    int64  `json:"atMs"`
	What    string `json:"what"`
	Tool    string `json:"tool,omitempty"`
	Outcome string `json:"outcome,omitempty"`
}

func rowHistoryJSON(id string, h []host.HistoryEntry, known, lasting bool) rowHistoryReply {
	r := rowHistoryReply{OK: true, Session: id, Known: known, Lasting: lasting, Events: make([]rowHistoryItem, 0, len(h))}
	for _, e := range h {
		r.Events = append(r.Events, rowHistoryItem{AtMs: e.AtMs, What: e.What, Tool: e.Tool, Outcome: e.Outcome})
	}
	return r
}
