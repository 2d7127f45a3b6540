// Package templates holds the templ components of notch-web's two live
// pages: the board (the folded tab and its rows, mirroring the desktop
// overlay) and the Settings pane. Components take view models and never do
// I/O; the hub renders each once per change and sends the same bytes to every
// open tab.
//
// Each page has its view model beside its templates: board_view.go for
// board.templ, groups.templ and face.templ, pane_view.go for pane.templ. The
// parts a board draws once per row (the row, the group list, the face, the
// activity) are written in Go by markup.go's writer rather than templ, for
// the render's speed, escaping every value exactly as templ does. The
// view models turn the schema-4 document and the settings view into the
// small facts the components draw. They are plain Go, so the golden tests
// can pin them down, and they never read a clock: everything that depends on
// "now" (relative times, the pleased face) is computed on the client from
// data attributes, so the same view always renders to the same bytes.
package templates

// The pages a stream can serve; the hub and the pages share these names.
const (
	PageBoard = "board"
	PagePane  = "pane"
)
