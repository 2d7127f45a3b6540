package web

import (
	"bytes"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/internal/pace"
	"github.com/notch-web/notch-web/internal/sse"
	"github.com/notch-web/notch-web/web/templates"
)

// The History page's stream: how often it may render, how long a write
// may take, and how many may be open at once.
const (
	// historyGap is the least time between two renders of one stream: the
	// store is written in batches, a busy day many a second, and a
	// history needs not be fresher than this.
	historyGap = time.Second
	// historyTick re-renders for what time alone changes: an open
	// session's length, the now line, the day rolling over.
	historyTick = time.Minute
	// historyWriteTimeout drops a stream whose reader stopped reading.
	historyWriteTimeout = 10 * time.Second
	// maxHistoryStreams bounds the open streams (each renders its own
	// query).
	maxHistoryStreams = 64
)

// historyStream is GET /agents-notch/history/stream?<the page's query>: the
// History page's live part (#hist-live) for that query, patched when the
// store says it changed, at most once a second, and only when what it
// draws changed. Each stream renders its own query, so it is not the
// board's fan-out, where every tab gets the same bytes.
func (s *Server) historyStream(c echo.Context) error {
	if s.history == nil {
		return echo.NewHTTPError(http.StatusNotFound, "this notch-web keeps no history")
	}
	q, err := store.ParseQuery(c.QueryParams(), s.loc())
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if s.histStreams.Add(1) > maxHistoryStreams {
		s.histStreams.Add(-1)
		return echo.NewHTTPError(http.StatusServiceUnavailable, "too many history pages are open")
	}
	defer s.histStreams.Add(-1)
	changes, stop := s.history.Changes()
	defer stop()

	ctx := c.Request().Context()
	w := c.Response().Writer
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	c.Response().Committed = true
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a server WriteTimeout must not cut the stream
	if err := rc.Flush(); err != nil {
		return nil
	}
	var last []byte
	send := func() error {
		html, err := renderHTML(templates.HistoryLive(s.historyView(ctx, q)))
		if err != nil || bytes.Equal(html, last) {
			return err
		}
		_ = rc.SetWriteDeadline(time.Now().Add(historyWriteTimeout))
		if _, err := w.Write(sse.Elements(html)); err != nil {
			return err
		}
		last = html
		return rc.Flush()
	}
	tick := time.NewTicker(historyTick)
	defer tick.Stop()
	// Every render counts towards the pace, one that found nothing new
	// included: a burst of writes costs a render a second at most.
	p := pace.Pace{Gap: historyGap}
	for {
		if err := send(); err != nil {
			s.historyLog("history stream ended", err)
			return nil
		}
		p.Mark(time.Now())
		select {
		case <-ctx.Done():
			return nil
		case <-s.Hub.Closing():
			return nil
		case <-changes:
		case <-tick.C:
		}
		if !p.Wait(ctx) {
			return nil
		}
	}
}
