package web

import (
	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/web/templates"
)

// approvalsView is the host's cards as the board page draws them.
func approvalsView(c host.CardSet) templates.Approvals {
	v := templates.Approvals{Agents: c.Agents, Off: c.Off, Steer: c.Steer, SteerOff: c.SteerOff}
	if len(c.Whys) > 0 {
		v.Whys = make(map[string]templates.Why, len(c.Whys))
		for id, w := range c.Whys {
			v.Whys[id] = templates.Why{Kind: w.Kind, Label: w.Label(), Words: w.Words, ResetsMs: w.ResetsMs}
		}
	}
	if len(c.Cards) > 0 {
		v.Cards = make(map[string][]templates.ApprovalCard, len(c.Cards))
	}
	for _, k := range c.Cards {
		v.Cards[k.Session] = append(v.Cards[k.Session], templates.ApprovalCard{
			Key: k.Key, Session: k.Session, Call: k.Call, Agent: k.Agent, Tool: k.Tool,
			Detail: k.Detail, Note: k.Note, Always: k.Always, AlwaysRules: k.AlwaysRules, Nonce: k.Nonce,
			Kind: k.Kind, Questions: questionsView(k.Questions), Plan: k.Plan, Mode: k.Mode,
			State: k.State, Outcome: k.Outcome, By: k.By,
			Files: cardFilesView(k.Files), Command: k.Command, Cwd: k.Cwd,
		})
	}
	return v
}

// questionsView is a question card's questions as the page draws them.
func questionsView(qs []hookjson.Question) []templates.Question {
	var out []templates.Question
	for _, q := range qs {
		v := templates.Question{Text: q.Text, Header: q.Header, Multi: q.Multi}
		for _, o := range q.Options {
			v.Options = append(v.Options, templates.Option{Label: o.Label, Description: o.Description})
		}
		out = append(out, v)
	}
	return out
}

// cardFilesView is a card's change as the page draws it.
func cardFilesView(fs []host.CardFile) []templates.DiffFile {
	var out []templates.DiffFile
	for _, f := range fs {
		out = append(out, templates.DiffFile{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Note: f.Note, View: f.View})
	}
	return out
}
