package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/state"
)

// answerRequest is the body of POST /agents-notch/approve: a card's
// session, call and single-use nonce, and the human's decision.
type answerRequest struct {
	SessionID string `json:"sessionId"`
	Call      string `json:"call"`
	Nonce     string `json:"nonce"`
	Decision  string `json:"decision"`
	Message   string `json:"message"`
	// Answers are a question card's: per question, the chosen options'
	// indexes and the human's own words.
	Answers []hookjson.Choice `json:"answers"`
}

// maxNonce bounds the nonce field (a card's is 43 bytes).
const maxNonce = 64

// parseAnswerRequest reads an answer strictly: the known fields only, a
// decision of allow, deny, always, mode or answer, a message only with a
// deny (one line, at most hookjson.MaxDecisionMessage bytes once cleaned),
// answers only with answer (bounded: hookjson.CheckChoices; whether they
// fit the card's questions is the host's to say).
func parseAnswerRequest(body []byte) (host.AnswerRequest, error) {
	var req answerRequest
	if err := decodeStrict(body, &req); err != nil {
		return host.AnswerRequest{}, fmt.Errorf(`want {"sessionId", "call", "nonce", "decision", "message", "answers"}: %v`, err)
	}
	switch {
	case !state.ValidSessionID(req.SessionID):
		return host.AnswerRequest{}, fmt.Errorf("sessionId must be 1 to %d bytes of text", state.MaxSessionID)
	case len(req.Call) > state.MaxSessionID || !utf8.ValidString(req.Call) || state.HasControl(req.Call):
		return host.AnswerRequest{}, errors.New("call is not a tool call id")
	case req.Nonce == "" || len(req.Nonce) > maxNonce:
		return host.AnswerRequest{}, errors.New("nonce is missing")
	}
	if req.Decision != host.DecideDeny && strings.TrimSpace(req.Message) != "" {
		return host.AnswerRequest{}, errors.New("a message goes only with a deny")
	}
	if req.Decision != host.DecideAnswer && req.Answers != nil {
		return host.AnswerRequest{}, errors.New("answers go only with answer")
	}
	switch req.Decision {
	case host.DecideAllow, host.DecideAlways, host.DecideMode:
	case host.DecideDeny:
		if len(req.Message) > 4*hookjson.MaxDecisionMessage {
			return host.AnswerRequest{}, fmt.Errorf("message is longer than %d bytes", hookjson.MaxDecisionMessage)
		}
	case host.DecideAnswer:
		if len(req.Answers) == 0 {
			return host.AnswerRequest{}, errors.New("answer needs answers")
		}
		if err := hookjson.CheckChoices(req.Answers); err != nil {
			return host.AnswerRequest{}, err
		}
	default:
		return host.AnswerRequest{}, errors.New("decision must be allow, deny, always, mode or answer")
	}
	r := host.AnswerRequest{
		Session: req.SessionID, Call: req.Call, Nonce: req.Nonce, Decision: req.Decision,
		Message: hookjson.OneLine(req.Message, hookjson.MaxDecisionMessage),
	}
	if req.Answers != nil {
		r.Answers = &req.Answers
	}
	return r, nil
}

// answerReply answers POST /agents-notch/approve.
type answerReply struct {
	OK      bool   `json:"ok"`
	Outcome string `json:"outcome"`
}

// postApprove is a card's Allow once / Deny / Always allow: the held hook
// gets the decision. A card already answered elsewhere is 409 ("already
// answered in the terminal"), one whose hold ended is 409 too; a nonce that
// is unknown, bound to another session or call, or used already is 403.
// A follower answers nothing. On a hub, a card of another machine's row is
// answered by that machine (host/mesh): its refusals map the same way, and
// a machine that is quiet or does not reply is 503, saying so.
func (s *Server) postApprove(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	r, err := parseAnswerRequest(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	// The history keeps which paired device answered, by the name it has
	// now (a later rename or revoke leaves the past as it was); a click
	// from this computer's own browser names none — nothing is made up
	// for a device the person never named.
	d, _ := s.deviceOf(c.Request())
	r.Device = d.Name
	r.OperationID = OperationID(c.Request().Context())
	card, err := s.Host.Answer(r)
	if err != nil {
		return answerError(err)
	}
	return written(c, answerReply{OK: true, Outcome: card.Outcome})
}

// answerError maps Host.Answer's refusals to statuses: one table for the
// board's buttons and a push's.
func answerError(err error) error {
	switch {
	case errors.Is(err, host.ErrFollowing):
		return echo.NewHTTPError(http.StatusConflict, "this notch-web follows another host: it answers no approvals")
	case errors.Is(err, host.ErrApprovalsOff), errors.Is(err, host.ErrNonce):
		return echo.NewHTTPError(http.StatusForbidden, err.Error())
	case errors.Is(err, host.ErrAnswered), errors.Is(err, host.ErrNotHeld):
		return echo.NewHTTPError(http.StatusConflict, err.Error())
	case errors.Is(err, host.ErrAgentGone):
		return echo.NewHTTPError(http.StatusGone, err.Error())
	case errors.Is(err, host.ErrDecision):
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	case errors.Is(err, host.ErrMachineAway):
		return echo.NewHTTPError(http.StatusServiceUnavailable, err.Error())
	}
	return err
}
