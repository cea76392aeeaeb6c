// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

const (
	width      = 1200
	panelW     = width / 2
	panelH     = 330
	headerH    = 44
	plotLeft   = 80
	plotRight  = 20
	plotTop    = 30
	plotBottom = 90 // room for the x axis and four legend rows
)

var (
	background = color.RGBA{0x16, 0x17, 0x1b, 0xff}
	panelBG    = color.RGBA{0x21, 0x22, 0x28, 0xff}
	gridColor  = color.RGBA{0x33, 0x35, 0x3d, 0xff}
	textColor  = color.RGBA{0xd8, 0xd9, 0xda, 0xff}
	dimText    = color.RGBA{0x9f, 0xa2, 0xa8, 0xff}
	palette    = []color.RGBA{
		{0x73, 0xbf, 0x69, 0xff}, {0xf2, 0xcc, 0x0c, 0xff}, {0x8a, 0xb8, 0xff, 0xff},
		{0xff, 0x78, 0x0a, 0xff}, {0xf2, 0x49, 0x5c, 0xff}, {0x58, 0x94, 0xdf, 0xff},
		{0xb8, 0x77, 0xd9, 0xff}, {0x96, 0xd9, 0x8d, 0xff},
	}
)

// xLabelEvery is the x axis' label spacing in seconds.
const xLabelEvery = 15

// render draws the dashboard's panels two per row, in the dashboard's order, each a line chart of its series over
// the run's seconds with the y axis in the panel's unit and a legend.
func render(d dashboard) ([]byte, error) {
	rows := (len(d.Panels) + 1) / 2
	img := image.NewRGBA(image.Rect(0, 0, width, headerH+rows*panelH))
	fill(img, img.Bounds(), background)
	text(img, 12, 20, textColor, d.Title)
	text(img, 12, 36, dimText, d.Source)
	for i, p := range d.Panels {
		x0, y0 := (i%2)*panelW, headerH+(i/2)*panelH
		if err := drawPanel(img, image.Rect(x0+4, y0+4, x0+panelW-4, y0+panelH-4), p); err != nil {
			return nil, fmt.Errorf("panel %q: %w", p.Title, err)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func drawPanel(img *image.RGBA, r image.Rectangle, p panel) error {
	fill(img, r, panelBG)
	text(img, r.Min.X+8, r.Min.Y+16, textColor, p.Title)
	plot := image.Rect(r.Min.X+plotLeft, r.Min.Y+plotTop, r.Max.X-plotRight, r.Max.Y-plotBottom)
	lo, hi, ok := valueRange(p.Series)
	if !ok && p.Note != "" {
		text(img, plot.Min.X, plot.Min.Y+plot.Dy()/2, dimText, truncate(p.Note, plot.Dx()/7))
		return nil
	}
	if !ok {
		return fmt.Errorf("no values and no note: the test fails a panel without data, so this file is not from a passing run")
	}
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		y := plot.Max.Y - int(float64(plot.Dy())*float64(i)/4)
		hline(img, plot.Min.X, plot.Max.X, y, gridColor)
		label := formatValue(v, p.Unit)
		text(img, plot.Min.X-8-7*len(label), y+4, dimText, label)
	}
	n := len(p.Seconds)
	xOf := func(i int) int { return plot.Min.X + int(float64(plot.Dx())*float64(i)/float64(max(n-1, 1))) }
	next := 0
	for i, sec := range p.Seconds {
		if sec >= next {
			label := fmt.Sprintf("%ds", sec)
			text(img, xOf(i)-3*len(label), plot.Max.Y+14, dimText, label)
			next = sec + xLabelEvery
		}
	}
	yOf := func(v float64) int { return plot.Max.Y - int(float64(plot.Dy())*(v-lo)/(hi-lo)) }
	for si, s := range p.Series {
		c := palette[si%len(palette)]
		for i := 1; i < len(s.Values); i++ {
			if s.Values[i-1] >= 0 && s.Values[i] >= 0 {
				line(img, xOf(i-1), yOf(s.Values[i-1]), xOf(i), yOf(s.Values[i]), c)
			}
		}
		lx, ly := r.Min.X+8+(si%2)*(r.Dx()/2), plot.Max.Y+30+(si/2)*14
		if ly < r.Max.Y-4 {
			fill(img, image.Rect(lx, ly-8, lx+10, ly), c)
			text(img, lx+14, ly, textColor, truncate(s.Legend, r.Dx()/2/7-4))
		}
	}
	return nil
}

// valueRange is the y axis: from 0 (every panel's unit counts something) to the largest value, with headroom; a
// panel of zeros gets the range 0..1.
func valueRange(ss []series) (lo, hi float64, ok bool) {
	for _, s := range ss {
		for _, v := range s.Values {
			if v >= 0 {
				ok = true
				hi = math.Max(hi, v)
			}
		}
	}
	if hi == 0 {
		hi = 1
	}
	return 0, hi * 1.1, ok
}

func formatValue(v float64, unit string) string {
	if unit == "bytes" {
		return fmt.Sprintf("%.0f MiB", v/(1<<20))
	}
	if v != 0 && math.Abs(v) < 0.01 {
		return fmt.Sprintf("%.1e", v)
	}
	return fmt.Sprintf("%.2g", v)
}

func truncate(s string, n int) string {
	if n > 3 && len(s) > n {
		return s[:n-3] + "..."
	}
	return s
}

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, &image.Uniform{C: c}, image.Point{}, draw.Src)
}

func hline(img *image.RGBA, x0, x1, y int, c color.Color) {
	for x := x0; x <= x1; x++ {
		img.Set(x, y, c)
	}
}

// line draws a 2-pixel line (Bresenham).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		img.Set(x0, y0, c)
		img.Set(x0, y0+1, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func text(img *image.RGBA, x, y int, c color.Color, s string) {
	d := font.Drawer{Dst: img, Src: &image.Uniform{C: c}, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}
