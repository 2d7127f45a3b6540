package templates

import (
	"html"
	"regexp"
	"strings"
	"testing"
)

// Every button of every card kind reads only what its own card holds: a
// querySelector that finds nothing is a TypeError in the browser and a
// button that does nothing (a question card's Decline once read a reason
// field only permission and plan cards have).
func TestEveryCardButtonFindsWhatItReads(t *testing.T) {
	waiting := func(k ApprovalCard) ApprovalCard {
		k.Key, k.Session, k.Call, k.Agent, k.Nonce, k.State = "k1", "s1", "c1", "claude-code", "n1", CardWaiting
		return k
	}
	for _, c := range []struct {
		name    string
		card    ApprovalCard
		buttons []string // the decisions its buttons send, in order
	}{
		{"permission", waiting(ApprovalCard{Tool: "Bash", Detail: "ls", Always: "Bash(ls:*)", AlwaysRules: []string{"Bash(ls:*)"}, Mode: "Allow and accept edits"}),
			[]string{"allow", "always", "mode", "deny"}},
		{"question single", waiting(ApprovalCard{Kind: KindQuestion, Questions: []Question{{Text: "Colour?", Options: []Option{{Label: "Teal"}}}}}),
			[]string{"answer", "deny"}},
		{"question multi", waiting(ApprovalCard{Kind: KindQuestion, Questions: []Question{{Text: "Checks?", Multi: true, Options: []Option{{Label: "Lint"}, {Label: "Unit"}}}}}),
			[]string{"answer", "deny"}},
		{"plan", waiting(ApprovalCard{Kind: KindPlan, Plan: "1. Do it."}),
			[]string{"allow", "mode", "deny"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			page := string(render(t, approvalCard(c.card)))
			actions := clickRE.FindAllStringSubmatch(page, -1)
			var got []string
			for _, a := range actions {
				js := html.UnescapeString(a[1])
				if d := decisionRE.FindStringSubmatch(js); d != nil {
					got = append(got, d[1])
				}
				for _, sel := range selectorRE.FindAllStringSubmatch(js, -1) {
					if !hasClass(page, strings.TrimPrefix(sel[1], ".")) {
						t.Errorf("a button reads %s, which its card lacks:\n%s", sel[1], js)
					}
				}
			}
			if strings.Join(got, " ") != strings.Join(c.buttons, " ") {
				t.Errorf("buttons send %v, want %v", got, c.buttons)
			}
		})
	}
}

var (
	clickRE    = regexp.MustCompile(`data-on:click="([^"]*)"`)
	decisionRE = regexp.MustCompile(`decision: '(\w+)'`)
	selectorRE = regexp.MustCompile(`querySelector\('(\.[\w-]+)'\)`)
)

// hasClass reports whether an element of page has class c.
func hasClass(page, c string) bool {
	return regexp.MustCompile(`class="(?:[^"]* )?` + regexp.QuoteMeta(c) + `(?: [^"]*)?"`).MatchString(page)
}
