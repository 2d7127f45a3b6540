package templates

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"sync"

	"github.com/a-h/templ"

	"github.com/notch-web/notch-web/state"
)

// face is the bot's face for a session, under its own id so that a change
// of mood patches the face alone: an SVG that wears the session's mood and
// never spells it out. Its accessible name is the mood in words. When an
// approval was allowed, data-approved-at lets notch.js lay the pleased face
// over it for 3 s (the clock lives on the client, so the server render
// stays byte-stable).
//
// A board draws a face per row, and a face is one of a dozen fixed
// drawings, so it is written here rather than through templ's attribute
// machinery: the drawing comes from faceSVG, rendered once per mood by
// faceDrawing (face.templ), and every value written is either fixed text or
// escaped (the id), as templ would.
func face(s state.Session, large bool, id string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		m := newMarkup(w)
		writeFace(m, s, large, id)
		return m.err
	})
}

// writeFace writes face(s, large, id).
func writeFace(m *markup, s state.Session, large bool, id string) {
	md := mood(s)
	pleased := s.ApprovedAt != nil && mayPlease(md)
	m.raw(`<span id="`)
	m.esc(id)
	if large {
		m.raw(`" class="bot bot-lg`)
	} else {
		m.raw(`" class="bot bot-sm`)
	}
	m.raw(`" role="img" aria-label="`, moodLabel(md), `" data-mood="`, md)
	if pleased {
		m.raw(`" data-approved-at="`, strconv.FormatInt(*s.ApprovedAt, 10))
	}
	m.raw(`">`, faceSVG(md, pleased), `</span>`)
}

// faceSVG is faceDrawing(m, pleased), rendered once per mood and kept.
func faceSVG(m string, pleased bool) string {
	return faceCache()[faceKey{m, pleased}]
}

type faceKey struct {
	mood    string
	pleased bool
}

var faceCache = sync.OnceValue(func() map[faceKey]string {
	moods := []string{moodIdle, moodThinking, moodBusy, moodAsking, moodConfused, moodDizzy, moodDone, moodError, moodPleased}
	out := make(map[faceKey]string, 2*len(moods))
	for _, m := range moods {
		for _, pleased := range []bool{false, true} {
			var b bytes.Buffer
			if err := faceDrawing(m, pleased).Render(context.Background(), &b); err != nil {
				panic(err) // fixed markup: a failure is a programming error
			}
			out[faceKey{m, pleased}] = b.String()
		}
	}
	return out
})
