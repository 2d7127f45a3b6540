package host

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/state"
)

// playDemo plays the built-in scenario in a loop through the same path a
// harness's POST takes: each event is encoded, decoded and validated by
// state.DecodeEvents, then applied to the board. Beside it each loop plays
// a Claude Code session through the hooks' path, whose approval card is
// answerable (demoAsk).
func playDemo(ctx context.Context, h *Host) error {
	for loop := 0; ; loop++ {
		start := time.Now()
		asked := make(chan struct{})
		go func() {
			defer close(asked)
			defer logx.Guard(h.log)()
			h.demoAsk(ctx, loop, start, defaultDemoAsk)
		}()
		for _, te := range state.DemoScript(loop) {
			if !sleepUntil(ctx, start.Add(te.After)) {
				<-asked
				return nil
			}
			line, err := json.Marshal(te.Event)
			if err == nil {
				var evs []state.Event
				if evs, err = state.DecodeEvents(line); err == nil {
					_, err = h.board.Ingest(evs, time.Now())
				}
			}
			if err != nil {
				h.log.Error("demo event refused", "log_type", logx.TypeDemo, logx.Err("DemoError", err))
			}
		}
		<-asked
		if ctx.Err() != nil {
			return nil
		}
	}
}

// sleepUntil waits until t; false when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	wait := time.Until(t)
	if wait <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// demoAskTimes are when the demo's Claude Code session does what it does,
// from the start of its loop.
type demoAskTimes struct {
	Prompt time.Duration // its prompt
	Ask    time.Duration // the tool call, and its PermissionRequest, held
	// SelfAnswer is how long the card waits for a person before the demo
	// answers it itself (Allow once), so that the loop goes on.
	SelfAnswer time.Duration
	After      time.Duration // from the answer to the end of the turn
	Finish     time.Duration // the row closed out, before the next loop
}

// defaultDemoAsk fits a state.DemoLoop: the card waits 15 s, inside the
// default hold of 25 s.
var defaultDemoAsk = demoAskTimes{
	Prompt: 2 * time.Second, Ask: 4 * time.Second, SelfAnswer: 15 * time.Second,
	After: 3 * time.Second, Finish: state.DemoLoop - 2*time.Second,
}

// DemoDevice is where the demo's own answer was given, as the card's and
// the history's device.
const DemoDevice = "the demo (nobody answered)"

// demoAsk plays one loop's Claude Code session through the hooks, as Claude
// Code's http hooks post them: a prompt, a Bash call and its
// PermissionRequest, held like any — the board's Allow once / Deny answer
// it. When nobody has after t.SelfAnswer, the demo answers Allow once
// itself (the card says which device). Then the call's result, the end of
// the turn, and the row closed out before the next loop.
func (h *Host) demoAsk(ctx context.Context, loop int, start time.Time, t demoAskTimes) {
	session := fmt.Sprintf("demo-%d-release", loop)
	call := fmt.Sprintf("toolu_demo%d", loop)
	command := "git tag v0.9.0 && git push origin v0.9.0"
	hook := func(event string, fields map[string]any) map[string]any {
		p := map[string]any{"session_id": session, "cwd": "/home/dev/src/notch-web", "hook_event_name": event}
		for k, v := range fields {
			p[k] = v
		}
		return p
	}
	send := func(p map[string]any) {
		b, _ := json.Marshal(p)
		if _, err := h.Hook("claude-code", b, time.Now()); err != nil {
			h.log.Error("demo hook refused", "log_type", logx.TypeDemo, logx.Err("DemoError", err))
		}
	}
	input := map[string]any{"command": command, "description": "Tag the release and push the tag"}
	if !sleepUntil(ctx, start.Add(t.Prompt)) {
		return
	}
	send(hook("UserPromptSubmit", map[string]any{"prompt": "Tag v0.9.0 and push it"}))
	if !sleepUntil(ctx, start.Add(t.Ask)) {
		return
	}
	send(hook("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": call}))
	ask, _ := json.Marshal(hook("PermissionRequest", map[string]any{
		"tool_name": "Bash", "tool_input": input,
		"permission_suggestions": []any{map[string]any{
			"type": "addRules", "behavior": "allow", "destination": "session",
			"rules": []any{map[string]any{"toolName": "Bash", "ruleContent": "git push:*"}},
		}},
	}))
	// HookHeld's two halves: the card is on the board before the demo
	// may answer it, and the request is held meanwhile.
	replied := make(chan []byte, 1)
	_, e, err := h.hook("claude-code", ask, time.Now(), true, Origin{})
	if err != nil {
		h.log.Error("demo hook refused", "log_type", logx.TypeDemo, logx.Err("DemoError", err))
	}
	if e == nil {
		replied <- nil
	} else {
		go func() {
			defer logx.Guard(h.log)()
			replied <- h.approvals.wait(ctx, e, MaxApprovalHold)
		}()
	}
	self := time.NewTimer(t.SelfAnswer)
	defer self.Stop()
	var reply []byte
	select {
	case reply = <-replied:
	case <-self.C:
		h.demoAnswer(session)
		reply = <-replied
	}
	var d struct {
		HookSpecificOutput struct {
			Decision struct{ Behavior string } `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	_ = json.Unmarshal(reply, &d)
	if d.HookSpecificOutput.Decision.Behavior == "allow" {
		send(hook("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": call,
			"tool_response": map[string]any{"stdout": "To github.com:dev/notch-web.git\n * [new tag] v0.9.0 -> v0.9.0", "stderr": ""}}))
	}
	if !sleepUntil(ctx, time.Now().Add(t.After)) {
		return
	}
	send(hook("Stop", nil))
	if !sleepUntil(ctx, start.Add(t.Finish)) {
		return
	}
	if _, err := h.board.Ingest([]state.Event{{V: state.EventVersion, Type: state.TypeSessionFinished, Session: session}}, time.Now()); err != nil {
		h.log.Error("demo event refused", "log_type", logx.TypeDemo, logx.Err("DemoError", err))
	}
}

// demoAnswer answers the demo session's waiting card Allow once, as a
// click would; a card a person answered meanwhile is left as they did.
func (h *Host) demoAnswer(session string) {
	for _, c := range h.board.Cards().Cards {
		if c.Session != session || c.State != CardWaiting || c.Nonce == "" {
			continue
		}
		_, err := h.Answer(AnswerRequest{Session: c.Session, Call: c.Call, Nonce: c.Nonce, Decision: DecideAllow, Device: DemoDevice})
		if err != nil {
			h.log.Debug("demo answer not taken", "log_type", logx.TypeDemo, slog.String("reason", err.Error()))
		}
	}
}
