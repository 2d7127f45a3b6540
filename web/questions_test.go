package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// A question card on the page: each question a radio group or checkboxes
// (roles a screen reader names), its hostile labels as text, Other with
// its words, Submit and Decline; the page's POST of the answers reaches
// the held hook as Claude Code takes them. A plan card shows the plan as
// text in its own scrolling region with Approve, Approve and auto-accept
// edits and Keep planning.
func TestQuestionAndPlanCardsOnThePage(t *testing.T) {
	e := newEnv(t, envOpts{run: true})
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"s","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	ask := `,"tool_name":"AskUserQuestion","tool_input":{"questions":[` +
		`{"question":"Colour <img src=x onerror=alert(1)>?","header":"Colour","options":[{"label":"Teal\u202e<b>","description":"</div>cool"},{"label":"Coral"}],"multiSelect":false},` +
		`{"question":"Checks?","header":"Checks","options":[{"label":"Lint"},{"label":"Unit"}],"multiSelect":true}]}`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), nil)
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", ask+`,"tool_use_id":"q1"`), nil)
	reply := heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", ask))
	c := waitCard(t, e, host.CardWaiting)

	_, page := getPage(t, e, "/agents-notch/")
	for _, want := range []string{
		`data-kind="question"`,
		`role="radiogroup"`,
		`type="radio" class="card-choice"`,
		`type="checkbox" class="card-choice"`,
		`Colour &lt;img src=x onerror=alert(1)&gt;?`,
		`Teal &lt;b&gt;`,
		`&lt;/div&gt;cool`,
		`class="card-other-text"`,
		`>Submit answers</button>`,
		`>Decline</button>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(page, "<img src=x") || strings.Contains(page, "\u202e") {
		t.Fatalf("a label reached the page as markup or with its bidi override")
	}
	same := map[string]string{"Origin": e.base, "Sec-Fetch-Site": "same-origin", "Datastar-Request": "true"}
	body, _ := json.Marshal(map[string]any{"sessionId": c.Session, "call": c.Call, "nonce": c.Nonce, "decision": "answer",
		"answers": []map[string]any{{"options": []int{0, 1}}, {"options": []int{1}}}})
	if st, _ := postRaw(t, e, "/agents-notch/approve", string(body), same); st != 400 {
		t.Fatalf("two options for a single choice: %d, want 400", st)
	}
	body, _ = json.Marshal(map[string]any{"sessionId": c.Session, "call": c.Call, "nonce": c.Nonce, "decision": "answer",
		"answers": []map[string]any{{"options": []int{0}}, {"options": []int{0, 1}, "other": "fuzz"}}})
	if st, b := postRaw(t, e, "/agents-notch/approve", string(body), same); st != 204 {
		t.Fatalf("answer: %d %s", st, b)
	}
	select {
	case r := <-reply:
		var d struct {
			HookSpecificOutput struct {
				Decision struct {
					Behavior     string
					UpdatedInput struct{ Answers map[string]string }
				}
			}
		}
		if err := json.Unmarshal([]byte(r[1]), &d); err != nil || d.HookSpecificOutput.Decision.Behavior != "allow" ||
			d.HookSpecificOutput.Decision.UpdatedInput.Answers["Colour <img src=x onerror=alert(1)>?"] != "Teal\u202e<b>" ||
			d.HookSpecificOutput.Decision.UpdatedInput.Answers["Checks?"] != "Lint, Unit, fuzz" {
			t.Fatalf("the held hook got %v", r)
		}
	case <-time.After(waitfor.Patience):
		t.Fatal("the held hook never got the answers")
	}

	plan := `,"tool_name":"ExitPlanMode","tool_input":{"plan":"# Plan\n\n<script>alert(1)</script>\n1. Do it.","planFilePath":"/p.md"}`
	postRaw(t, e, "/agents-notch/hooks/claude-code", hook("PreToolUse", plan+`,"tool_use_id":"p1"`), nil)
	reply = heldPost(t, e, "/agents-notch/hooks/claude-code", hook("PermissionRequest", plan))
	var pc host.Card
	deadline := time.Now().Add(5 * time.Second)
	for pc.Kind != host.KindPlan && time.Now().Before(deadline) {
		for _, k := range e.board.Cards().Cards {
			if k.Kind == host.KindPlan && k.State == host.CardWaiting {
				pc = k
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, page = getPage(t, e, "/agents-notch/")
	for _, want := range []string{
		`data-kind="plan"`,
		"# Plan\n\n&lt;script&gt;alert(1)&lt;/script&gt;\n1. Do it.</pre>",
		`>Approve</button>`, `>Approve and auto-accept edits</button>`, `>Keep planning</button>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	body, _ = json.Marshal(map[string]any{"sessionId": pc.Session, "call": pc.Call, "nonce": pc.Nonce, "decision": "mode"})
	if st, b := postRaw(t, e, "/agents-notch/approve", string(body), same); st != 204 {
		t.Fatalf("approve with edits: %d %s", st, b)
	}
	if r := <-reply; !strings.Contains(r[1], `"updatedPermissions":[{"destination":"session","mode":"acceptEdits","type":"setMode"}]`) ||
		!strings.Contains(r[1], `"updatedInput":{"plan":`) {
		t.Fatalf("the held hook got %v", r)
	}
}
