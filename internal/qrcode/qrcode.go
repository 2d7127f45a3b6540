// Package qrcode draws a QR code of a short text (a pairing link) two ways:
// in a terminal, two modules to a character with the half-block characters,
// and as an SVG path for a page. The encoding is rsc.io/qr's (small, no
// dependencies); this package only draws.
package qrcode

import (
	"fmt"
	"strconv"
	"strings"

	"rsc.io/qr"
)

// quiet is the margin of light modules around the code that readers need
// (the standard asks for 4).
const quiet = 4

// Code is a text's QR code.
type Code struct {
	c *qr.Code
}

// Encode makes the QR code of text at error-correction level M (15%),
// which keeps a link of 80 characters at 41×41 modules.
func Encode(text string) (Code, error) {
	c, err := qr.Encode(text, qr.M)
	if err != nil {
		return Code{}, fmt.Errorf("making a QR code: %w", err)
	}
	return Code{c: c}, nil
}

// Size is the modules on a side, the quiet margin included.
func (c Code) Size() int { return c.c.Size + 2*quiet }

// dark reports whether the module at (x, y), margin included, is dark.
func (c Code) dark(x, y int) bool {
	x, y = x-quiet, y-quiet
	if x < 0 || y < 0 || x >= c.c.Size || y >= c.c.Size {
		return false
	}
	return c.c.Black(x, y)
}

// Terminal draws the code for a terminal: each character is two modules
// stacked (▀ ▄ █ and space). With colour it is drawn black on white
// whatever the terminal's own colours, so a camera reads it on a dark
// theme too; without (not a terminal), the characters alone. A code of 41
// modules is 49 columns and 25 lines.
func (c Code) Terminal(colour bool) string {
	on, reset := "", ""
	if colour {
		on, reset = "\x1b[30;107m", "\x1b[0m"
	}
	n := c.Size()
	var b strings.Builder
	for y := 0; y < n; y += 2 {
		b.WriteString(on)
		for x := 0; x < n; x++ {
			top, bottom := c.dark(x, y), c.dark(x, y+1)
			switch {
			case top && bottom:
				b.WriteString("█")
			case top:
				b.WriteString("▀")
			case bottom:
				b.WriteString("▄")
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(reset + "\n")
	}
	return b.String()
}

// SVGPath is the code's dark modules as an SVG path in module units, for
// an <svg viewBox="0 0 Size Size">: one "M x y h1 v1 h-1 z" per run of
// dark modules in a row (a run is one rectangle).
func (c Code) SVGPath() string {
	n := c.Size()
	var b strings.Builder
	for y := 0; y < n; y++ {
		for x := 0; x < n; {
			if !c.dark(x, y) {
				x++
				continue
			}
			start := x
			for x < n && c.dark(x, y) {
				x++
			}
			b.WriteString("M" + strconv.Itoa(start) + " " + strconv.Itoa(y) + "h" + strconv.Itoa(x-start) + "v1h-" + strconv.Itoa(x-start) + "z")
		}
	}
	return b.String()
}
