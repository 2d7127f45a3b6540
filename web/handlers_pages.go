package web

import (
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host/push"
	"github.com/notch-web/notch-web/internal/sse"
	"github.com/notch-web/notch-web/security"
	"github.com/notch-web/notch-web/web/templates"
)

// boardPage is the board: a page in a plain tab, the overlay's mirror in
// the pop-out's own small window (?popout=1, opened by the page where the
// browser has no Document Picture-in-Picture).
func (s *Server) boardPage(c echo.Context) error {
	bv, _ := s.Hub.Models(s.Now())
	var lookingMs int64
	if s.Push != nil {
		lookingMs = push.LookingRenew.Milliseconds()
	}
	return render(c, templates.BoardPage(bv, c.QueryParam("popout") == "1", lookingMs, s.roleOf(c.Request()).String()))
}

func (s *Server) panePage(c echo.Context) error {
	_, pv := s.Hub.Models(s.Now())
	return render(c, templates.PanePage(pv, s.Locks.HarnessOrigins()))
}

// render renders a whole page into a buffer first, so a failed render never
// sends half a page.
func render(c echo.Context, comp templ.Component) error {
	return renderStatus(c, http.StatusOK, comp)
}

// renderStatus is render with a status other than 200.
func renderStatus(c echo.Context, status int, comp templ.Component) error {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := comp.Render(c.Request().Context(), buf); err != nil {
		return fail(http.StatusInternalServerError, "could not render the page", err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTMLBlob(status, buf.Bytes())
}

// stream is GET /agents-notch/stream?page=board|pane: the page's live patches.
func (s *Server) stream(c echo.Context) error {
	page := c.QueryParam("page")
	if page != templates.PageBoard && page != templates.PagePane {
		return echo.NewHTTPError(http.StatusBadRequest, "page must be board or pane")
	}
	// A paired device's stream ends when the device is revoked, or its
	// role changes: the page's next stream starts with the new role's mark
	// (templates.ViewerRole), so what it shows follows the role at once.
	end, intro := security.Revoked(c.Request().Context()), []byte(nil)
	if page == templates.PageBoard && !s.Locks.Local(c.Request()) {
		// This machine's role never changes: its page's mark stands.
		role, changed := s.watchRole(c.Request())
		if changed != nil {
			end = changed
		}
		mark, err := renderHTML(templates.ViewerRole(role.String()))
		if err != nil {
			return fail(http.StatusInternalServerError, "could not render the role's mark", err)
		}
		intro = sse.Elements(mark)
	}
	// The stream writes to the net/http writer itself: Echo's Response.Flush
	// swallows write errors, and a stalled reader must be seen to fail.
	c.Response().Committed = true
	s.Hub.ServeWith(c.Response().Writer, c.Request(), page, end, intro)
	return nil
}

// static serves web/static: long-lived caching is unsafe without hashed
// names, so pages revalidate.
func (s *Server) static() echo.HandlerFunc {
	fsrv := http.StripPrefix("/agents-notch/static/", http.FileServerFS(s.Static))
	return func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-cache")
		fsrv.ServeHTTP(c.Response(), c.Request())
		return nil
	}
}
