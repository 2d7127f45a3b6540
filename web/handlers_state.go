package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/state"
)

func (s *Server) getState(c echo.Context) error {
	doc, ok := s.Host.Board().Snapshot(s.Now())
	if !ok {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "no state read yet from the followed host")
	}
	data, err := state.Encode(doc)
	if err != nil {
		return fail(http.StatusInternalServerError, "could not encode the state", err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, data)
}

// postEvents takes one event (JSON) or many (NDJSON). The batch is decoded
// and validated whole, then applied all-or-nothing; a refusal names the line.
func (s *Server) postEvents(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	evs, err := state.DecodeEvents(body)
	if err != nil {
		var le *state.LineError
		line := 0
		if errors.As(err, &le) {
			line = le.Line
		}
		return c.JSON(http.StatusBadRequest, errReply{Error: err.Error(), Line: line})
	}
	warns, err := s.Host.Ingest(evs, s.Now())
	if errors.Is(err, host.ErrFollowing) {
		return echo.NewHTTPError(http.StatusConflict, err.Error())
	}
	if err != nil {
		return c.JSON(http.StatusBadRequest, errReply{Error: err.Error()})
	}
	for _, w := range warns {
		s.Log.Warn("event accepted with a correction", "log_type", logx.TypeEvents, slog.Group("data", "warning", w))
	}
	s.Log.Info("events applied", "log_type", logx.TypeEvents, slog.Group("data", "count", len(evs)))
	if warns == nil {
		warns = []string{}
	}
	return written(c, eventsReply{OK: true, Applied: len(evs), Warnings: warns})
}

func readSessionRequest(c echo.Context) (string, error) {
	body, err := readBody(c)
	if err != nil {
		return "", err
	}
	id, err := parseSessionRequest(body)
	if err != nil {
		return "", echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	return id, nil
}

// postFinish is the board's ✕: the close-out. With a finishedUrl the mark
// goes to the harness's close-out route; without one it is merged into
// manual.json, as the window does. Either way the row retires at once.
func (s *Server) postFinish(c echo.Context) error {
	id, err := readSessionRequest(c)
	if err != nil {
		return err
	}
	// The ✕ is on the board's rows only; refusing other ids keeps a script
	// from growing manual.json with marks for sessions that never were.
	if !s.Host.Board().Has(id) {
		return echo.NewHTTPError(http.StatusNotFound, "no such session on the board")
	}
	doc, _ := s.Host.Board().Snapshot(s.Now())
	if doc.FinishedURL != nil {
		if err := s.forward(c, *doc.FinishedURL, map[string]string{"sessionId": id, "state": "finished"}); err != nil {
			return err
		}
	} else if err := state.MergeMark(s.ManualPath, id, state.Mark{State: state.MarkFinished, At: s.Now().UnixMilli()}); err != nil {
		// A corrupt manual.json was kept beside and replaced: the mark is in.
		if !errors.Is(err, state.ErrMarksCorrupt) {
			return fail(http.StatusInternalServerError, "could not record the close-out", err)
		}
		s.Log.Warn("manual.json was unreadable; kept its bytes beside it and wrote the mark", "log_type", logx.TypeState,
			logx.Err("MarksCorrupt", err))
	}
	s.Host.Board().Retire(id)
	return written(c, ok)
}

// postOpen is the board's Open: forwarded to the harness's door.
func (s *Server) postOpen(c echo.Context) error {
	id, err := readSessionRequest(c)
	if err != nil {
		return err
	}
	if s.OpenDoor == "" {
		return echo.NewHTTPError(http.StatusNotFound, "no open door is configured (--open-url)")
	}
	if s.Host.Board().IsRemote(id) {
		return echo.NewHTTPError(http.StatusConflict, "this session runs on another machine: open it there (this board's opener acts on this machine only)")
	}
	if err := s.forward(c, s.OpenDoor, map[string]string{"sessionId": id}); err != nil {
		return err
	}
	return written(c, ok)
}

// forward POSTs body as JSON to the harness at url.
func (s *Server) forward(c echo.Context, url string, body any) error {
	data, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(c.Request().Context(), http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return fail(http.StatusBadGateway, "the harness could not be reached", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.Client.Do(req)
	if err != nil {
		return fail(http.StatusBadGateway, "the harness could not be reached", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fail(http.StatusBadGateway, fmt.Sprintf("the harness answered %d", resp.StatusCode), fmt.Errorf("POST %s: %s", url, resp.Status))
	}
	return nil
}
