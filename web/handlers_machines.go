package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host/mesh"
	"github.com/notch-web/notch-web/web/templates"

	"github.com/notch-web/notch-web/internal/logx"
)

// Mesh is the many-machines part the hub's pane lists and revokes from
// (host/mesh's Node).
type Mesh interface {
	Machines() []mesh.Machine
	Revoke(name string) error
}

// HubLink is a joined machine's connection to its hub (host/mesh's Node):
// why it is not connected, or "".
type HubLink interface {
	HubLink() string
}

// machineViews are the pane's rows for the machines.
func machineViews(ms []mesh.Machine) []templates.Machine {
	out := make([]templates.Machine, len(ms))
	for i, m := range ms {
		out[i] = templates.Machine{Name: m.Name, Present: m.Present, LastSeenMs: m.LastSeen, Sessions: m.Sessions, Paired: m.Paired}
	}
	return out
}

// revokeRequest is {"machine": "NAME"}.
type revokeRequest struct {
	Machine string `json:"machine"`
}

// parseRevokeRequest reads {"machine": "NAME"}.
func parseRevokeRequest(body []byte) (string, error) {
	var req revokeRequest
	if err := decodeStrict(body, &req); err != nil {
		return "", fmt.Errorf(`want {"machine": "NAME"}: %v`, err)
	}
	name := strings.TrimSpace(req.Machine)
	if err := mesh.CheckName(name); err != nil {
		return "", err
	}
	return name, nil
}

// postRevoke is the pane's Revoke: the hub forgets the machine's key and
// disconnects it at once; its rows leave the board. Behind every write
// lock, like every other write.
func (s *Server) postRevoke(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	name, err := parseRevokeRequest(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if s.Hub.Mesh == nil {
		return echo.NewHTTPError(http.StatusConflict, "this notch-web is not a hub (--hub)")
	}
	if err := s.Hub.Mesh.Revoke(name); err != nil {
		if errors.Is(err, mesh.ErrNotPaired) {
			return echo.NewHTTPError(http.StatusNotFound, "no such paired machine")
		}
		return fail(http.StatusInternalServerError, "could not revoke the machine", err)
	}
	s.Log.Info("machine revoked from the pane", "log_type", logx.TypeMesh, "data", map[string]any{"machine": name})
	return written(c, ok)
}
