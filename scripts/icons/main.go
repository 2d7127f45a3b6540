//go:build ignore

// Command icons draws the app's icons — the notch's bot, asking — as
// web/static/icon.svg and the PNGs the web manifest names (192 and 512 px,
// and a 512 px maskable one with the bot inside the safe zone). One list of
// shapes makes all of them, so the SVG and the PNGs cannot drift apart.
//
//	go run scripts/icons/main.go
package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
)

// The palette is notch.css's.
var (
	background = rgb(0x0f, 0x11, 0x17)
	head       = rgb(0x1b, 0x21, 0x30)
	teal       = rgb(0x2d, 0xd4, 0xbf)
	amber      = rgb(0xfb, 0xbf, 0x24)
	face       = rgb(0xea, 0xf2, 0xff)
)

func rgb(r, g, b uint8) color.NRGBA { return color.NRGBA{r, g, b, 0xff} }

// shape is one primitive in a 512 × 512 design space.
type shape interface {
	inside(x, y float64) bool
	svg() string
}

type roundRect struct {
	x, y, w, h, r float64
	fill          color.NRGBA
}

func (s roundRect) inside(x, y float64) bool {
	cx := math.Max(s.x+s.r, math.Min(x, s.x+s.w-s.r))
	cy := math.Max(s.y+s.r, math.Min(y, s.y+s.h-s.r))
	return x >= s.x && x <= s.x+s.w && y >= s.y && y <= s.y+s.h && math.Hypot(x-cx, y-cy) <= s.r
}

func (s roundRect) svg() string {
	return fmt.Sprintf(`<rect x="%g" y="%g" width="%g" height="%g" rx="%g" fill="%s"/>`, s.x, s.y, s.w, s.h, s.r, hex(s.fill))
}

// ring is a rounded rectangle's outline, stroke wide, centred on its edge.
type ring struct {
	roundRect
	stroke float64
}

func (s ring) inside(x, y float64) bool {
	h := s.stroke / 2
	outer := roundRect{s.x - h, s.y - h, s.w + s.stroke, s.h + s.stroke, s.r + h, s.fill}
	inner := roundRect{s.x + h, s.y + h, s.w - s.stroke, s.h - s.stroke, s.r - h, s.fill}
	return outer.inside(x, y) && !inner.inside(x, y)
}

func (s ring) svg() string {
	return fmt.Sprintf(`<rect x="%g" y="%g" width="%g" height="%g" rx="%g" fill="none" stroke="%s" stroke-width="%g"/>`,
		s.x, s.y, s.w, s.h, s.r, hex(s.fill), s.stroke)
}

type circle struct {
	cx, cy, r float64
	fill      color.NRGBA
}

func (s circle) inside(x, y float64) bool { return math.Hypot(x-s.cx, y-s.cy) <= s.r }

func (s circle) svg() string {
	return fmt.Sprintf(`<circle cx="%g" cy="%g" r="%g" fill="%s"/>`, s.cx, s.cy, s.r, hex(s.fill))
}

// line is a segment with round caps.
type line struct {
	x1, y1, x2, y2, width float64
	fill                  color.NRGBA
}

func (s line) inside(x, y float64) bool {
	dx, dy := s.x2-s.x1, s.y2-s.y1
	t := math.Max(0, math.Min(1, ((x-s.x1)*dx+(y-s.y1)*dy)/(dx*dx+dy*dy)))
	return math.Hypot(x-(s.x1+t*dx), y-(s.y1+t*dy)) <= s.width/2
}

func (s line) svg() string {
	return fmt.Sprintf(`<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="%g" stroke-linecap="round"/>`,
		s.x1, s.y1, s.x2, s.y2, hex(s.fill), s.width)
}

// scaled draws a shape scaled by k about the centre of the design space.
type scaled struct {
	shape
	k float64
}

func (s scaled) inside(x, y float64) bool {
	return s.shape.inside(256+(x-256)/s.k, 256+(y-256)/s.k)
}

func (s scaled) svg() string {
	return fmt.Sprintf(`<g transform="translate(256 256) scale(%g) translate(-256 -256)">%s</g>`, s.k, s.shape.svg())
}

func hex(c color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// bot is the face the board draws for a session asking the human: the
// antenna's bulb is the "needs you" amber.
func bot() []shape {
	return []shape{
		line{256, 92, 256, 150, 26, teal},
		circle{256, 84, 34, amber},
		roundRect{100, 150, 312, 270, 92, head},
		ring{roundRect{100, 150, 312, 270, 92, teal}, 26},
		circle{198, 268, 31, face},
		circle{314, 268, 31, face},
		line{214, 350, 298, 350, 26, face},
	}
}

// icon is the whole picture: a rounded tile (a full-bleed square when
// maskable, with the bot shrunk into the safe zone).
func icon(maskable bool) []shape {
	if !maskable {
		return append([]shape{roundRect{0, 0, 512, 512, 112, background}}, bot()...)
	}
	out := []shape{roundRect{0, 0, 512, 512, 0, background}}
	for _, s := range bot() {
		out = append(out, scaled{s, 0.78})
	}
	return out
}

func fillOf(s shape) color.NRGBA {
	switch v := s.(type) {
	case roundRect:
		return v.fill
	case ring:
		return v.fill
	case circle:
		return v.fill
	case line:
		return v.fill
	case scaled:
		return fillOf(v.shape)
	}
	panic("unknown shape")
}

// raster draws shapes at size × size with 8 × 8 samples a pixel.
func raster(shapes []shape, size int) *image.NRGBA {
	const n = 8
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	k := 512 / float64(size)
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < n; sy++ {
				for sx := 0; sx < n; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/n) * k
					y := (float64(py) + (float64(sy)+0.5)/n) * k
					for i := len(shapes) - 1; i >= 0; i-- {
						if shapes[i].inside(x, y) {
							c := fillOf(shapes[i])
							r, g, b, a = r+float64(c.R), g+float64(c.G), b+float64(c.B), a+1
							break
						}
					}
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{
				uint8(math.Round(r / a)), uint8(math.Round(g / a)), uint8(math.Round(b / a)),
				uint8(math.Round(255 * a / (n * n))),
			})
		}
	}
	return img
}

func writePNG(path string, img image.Image) error {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func main() {
	dir := filepath.Join("web", "static")
	var svg bytes.Buffer
	svg.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">`)
	for _, s := range icon(false) {
		svg.WriteString(s.svg())
	}
	svg.WriteString("</svg>\n")
	if err := os.WriteFile(filepath.Join(dir, "icon.svg"), svg.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	for _, o := range []struct {
		name     string
		size     int
		maskable bool
	}{
		{"icon-192.png", 192, false},
		{"icon-512.png", 512, false},
		{"icon-maskable-512.png", 512, true},
	} {
		if err := writePNG(filepath.Join(dir, o.name), raster(icon(o.maskable), o.size)); err != nil {
			log.Fatal(err)
		}
	}
}
