package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// The timeline is one SVG so that every panel shares one time axis: a
// reviewer reads down from a fault band to the leader, ISR, send and offset
// panels below it at the same instant. Geometry is computed here and
// written by html/template (see html.go), which escapes every label.

const (
	svgW   = 1360
	left   = 170 // room for lane names
	right  = 24
	plotW  = svgW - left - right
	laneH  = 18
	charPx = 6.4 // width of a character of the 11px labels, for fitting
)

// el is one SVG element. Numbers are kept as float64 and formatted by the
// template's num function (one decimal), which keeps the page small.
type el struct {
	Kind                string // rect, text, path, line
	X, Y, W, H, X2, Y2  float64
	D                   string
	Class, Fill, Stroke string
	SW, Opacity         float64
	Anchor, Text, Title string
	Dash                string // stroke-dasharray of a line
}

// svgDoc is a complete <svg>: Under is drawn first (fault bands, grid).
type svgDoc struct {
	W, H   float64
	Label  string
	Under  []el
	Els    []el
	Bands  int // number of fault bands, for the caption
	Legend []legendItem
}

type legendItem struct{ Color, Text string }

type canvas struct {
	doc    svgDoc
	t1     int64 // the time axis runs from 0 to t1 ns
	y      float64
	rf     int
	elr    bool // ELR lanes are drawn when ELR is on or a sample had one
	bandY0 float64
}

func (c *canvas) x(t int64) float64 {
	if t < 0 {
		t = 0
	}
	if t > c.t1 {
		t = c.t1
	}
	return left + float64(t)/float64(c.t1)*plotW
}

func (c *canvas) add(e el) { c.doc.Els = append(c.doc.Els, e) }

func (c *canvas) text(x, y float64, s, anchor, class string) {
	c.add(el{Kind: "text", X: x, Y: y, Text: s, Anchor: anchor, Class: class})
}

func (c *canvas) rect(x, y, w, h float64, fill, class, title string) {
	c.add(el{Kind: "rect", X: x, Y: y, W: math.Max(w, 0), H: h, Fill: fill, Class: class, Title: title})
}

// secs formats a run time in seconds for labels and tables.
func secs(ns int64) string { return strconv.FormatFloat(float64(ns)/1e9, 'f', 1, 64) + " s" }

// timelineSVG lays out the whole timeline: faults, then the sends of all
// partitions, then each partition's state lanes with its offset plot right
// below them, so that a partition's story reads in one place.
func timelineSVG(tl *timeline, bs []band, offline map[tp][]interval, rf int, elr bool, marks []markerRow) svgDoc {
	c := &canvas{t1: max(tl.End, 1e9), rf: rf, elr: elr}
	c.doc.W = svgW
	c.doc.Label = "timeline of faults, partition state, sends and offsets"
	c.axis(22, true)
	c.y = 32
	c.faults(bs)
	c.requestLane(tl.Requests)
	c.quorumLanes(tl.quorum)
	c.logLane(marks)
	c.throughput(tl)
	c.latency(tl)
	for _, p := range tl.sortedParts() {
		if len(p.States) > 0 || len(offline[p.TP]) > 0 {
			c.partLanes(p, offline[p.TP])
		}
		if p.MaxOffset >= 0 {
			c.offsets(tl, p)
		}
		c.y += 6
	}
	c.shareLanes(tl.shares, tl.Nemesis)
	c.axis(c.y+14, false)
	c.doc.H = c.y + 22
	c.grid()
	for _, b := range bs {
		x0, x1 := c.x(b.Start), c.x(b.End)
		w := math.Max(x1-x0, 2)
		c.doc.Under = append(c.doc.Under, el{Kind: "rect", X: x0, Y: c.bandY0, W: w, H: c.y - c.bandY0,
			Fill: faultColor(b.Kind), Opacity: 0.14, Class: "fault-band", Title: bandTitle(b)})
	}
	c.doc.Bands = len(bs)
	return c.doc
}

func bandTitle(b band) string {
	end := secs(b.End)
	if b.Open {
		end = "end of history (never undone)"
	}
	return fmt.Sprintf("%s: %s to %s", b.Detail, secs(b.Start), end)
}

// ticks returns tick times at a 1-2-5 step giving about ten ticks.
func ticks(t1 int64) []int64 {
	raw := float64(t1) / 10
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []int64
	for t := 0.0; t <= float64(t1)+1; t += step {
		out = append(out, int64(t))
	}
	return out
}

func (c *canvas) axis(y float64, top bool) {
	c.add(el{Kind: "line", X: left, Y: y + 4, X2: left + plotW, Y2: y + 4, Stroke: "#999", SW: 1})
	for _, t := range ticks(c.t1) {
		c.text(c.x(t), y, secs(t), "middle", "tick")
	}
	if top {
		c.text(8, y, "run time", "start", "tick")
	}
}

func (c *canvas) grid() {
	for _, t := range ticks(c.t1) {
		x := c.x(t)
		c.doc.Under = append(c.doc.Under, el{Kind: "line", X: x, Y: 26, X2: x, Y2: c.y, Stroke: "#eee", SW: 1})
	}
}

// faults draws the fault lane: one labelled box per band, stacked into
// rows so that labels do not overlap.
func (c *canvas) faults(bs []band) {
	c.text(8, c.y+12, "faults", "start", "lane-head")
	c.bandY0 = c.y
	var rowEnd []float64
	top := c.y
	rows := 1
	for _, b := range bs {
		x0 := c.x(b.Start)
		w := math.Max(c.x(b.End)-x0, 2)
		need := math.Max(w, float64(len(b.Label))*charPx+6)
		row := 0
		for row < len(rowEnd) && rowEnd[row] > x0 {
			row++
		}
		if row == len(rowEnd) {
			rowEnd = append(rowEnd, 0)
		}
		rowEnd[row] = x0 + need + 2
		rows = max(rows, row+1)
		y := top + float64(row)*(laneH+2)
		c.rect(x0, y, w, laneH, faultColor(b.Kind), "fault", bandTitle(b))
		if float64(len(b.Label))*charPx+6 <= w {
			c.text(x0+3, y+13, b.Label, "start", "fault-label")
		} else {
			c.text(x0+w+3, y+13, b.Label, "start", "fault-label-out")
		}
	}
	c.y = top + float64(rows)*(laneH+2) + 10
}

// faultColor is the colour the history's fault vocabulary gives kind.
func faultColor(kind string) string { return histories.FaultColor(kind) }

var brokerColors = []string{"#7fb3d5", "#82c99a", "#f0b27a", "#c39bd3", "#f7dc6f", "#76d7c4", "#e6b0aa", "#aeb6bf"}

// laneRun is a stretch of consecutive states that look the same in one lane.
type laneRun struct {
	start       int64
	label, fill string
}

// partLanes draws the leader, epoch, ISR, ELR and LastKnownELR lanes of a
// partition from its observed state changes, and a lane of the windows it
// was unavailable (the same windows as the report's table).
func (c *canvas) partLanes(p *part, offline []interval) {
	c.text(8, c.y+12, p.TP.String(), "start", "part-head")
	c.y += laneH
	lanes := []struct {
		name string
		f    func(s state) (string, string)
	}{
		{"leader", func(s state) (string, string) {
			if s.Leader < 0 {
				return "none", "#e74c3c"
			}
			return fmt.Sprint(s.Leader), brokerColors[int(s.Leader)%len(brokerColors)]
		}},
		{"leader epoch", func(s state) (string, string) {
			return fmt.Sprint(s.Epoch), []string{"#e3e3e3", "#cfcfcf"}[int(s.Epoch)&1]
		}},
		{"ISR", func(s state) (string, string) { return nodeList(s.ISR), c.isrColor(len(s.ISR)) }},
		{"ELR", func(s state) (string, string) { return setLabel(s.ELR, "#c9b3e0") }},
		{"LastKnownELR", func(s state) (string, string) { return setLabel(s.LKELR, "#e6d5f2") }},
	}
	if !c.elr && !slices.ContainsFunc(p.States, func(s state) bool { return len(s.ELR)+len(s.LKELR) > 0 }) {
		lanes = lanes[:3] // ELR off and never seen: two empty lanes say nothing
	}
	for _, ln := range lanes {
		c.text(24, c.y+13, ln.name, "start", "lane")
		var runs []laneRun
		for _, s := range p.States {
			label, fill := ln.f(s)
			if n := len(runs); n > 0 && runs[n-1].label == label {
				continue
			}
			r := laneRun{s.Time, label, fill}
			// Keep at most one run per pixel: a flapping lane still draws
			// in bounded size; the latest state of the pixel wins.
			if n := len(runs); n > 0 && math.Floor(c.x(runs[n-1].start)) == math.Floor(c.x(r.start)) {
				runs[n-1].label, runs[n-1].fill = label, fill
				continue
			}
			runs = append(runs, r)
		}
		for i, r := range runs {
			end := c.t1
			if i+1 < len(runs) {
				end = runs[i+1].start
			}
			x0, x1 := c.x(r.start), c.x(end)
			c.rect(x0, c.y+1, x1-x0, laneH-2, r.fill, "lane-seg",
				fmt.Sprintf("%s %s from %s to %s", ln.name, r.label, secs(r.start), secs(end)))
			if r.label != "[]" && float64(len(r.label))*charPx+4 < x1-x0 {
				c.text(x0+2, c.y+13, r.label, "start", "seg-label")
			}
		}
		c.y += laneH
	}
	c.text(24, c.y+13, "unavailable", "start", "lane")
	for _, iv := range offline {
		x0, x1 := c.x(iv.Start), c.x(iv.End)
		c.rect(x0, c.y+1, math.Max(x1-x0, 1), laneH-2, "#e74c3c", "offline",
			fmt.Sprintf("unavailable %.1f s, %s to %s: %s", iv.seconds(), secs(iv.Start), secs(iv.End), iv.Cause))
		if label := fmt.Sprintf("%.1f s", iv.seconds()); float64(len(label))*charPx+4 < x1-x0 {
			c.text(x0+2, c.y+13, label, "start", "seg-label")
		}
	}
	c.y += laneH + 8
}

// isrColor shades the ISR by how far it has shrunk below the replication
// factor: the single-member ISR is the precondition of most seed stories.
func (c *canvas) isrColor(n int) string {
	switch {
	case n == 0:
		return "#e74c3c"
	case n == 1:
		return "#f4a582"
	case c.rf > 0 && n < c.rf:
		return "#f5d98b"
	}
	return "#b7e1b0"
}

// setLabel shows an observed empty set as a pale unlabelled bar, so that
// "observed empty" differs from "not observed" (no bar).
func setLabel(s []int32, fill string) (string, string) {
	if len(s) == 0 {
		return "[]", "#f4f4f4"
	}
	return nodeList(s), fill
}

// bars returns a path of vertical strokes, one per bin; stroke width
// makes them bars. One path per series keeps a long history's page small.
func (c *canvas) bars(tl *timeline, base, scale float64, val func(b *bin) (lo, hi float64)) string {
	var sb strings.Builder
	for i := range tl.Bins {
		lo, hi := val(&tl.Bins[i])
		if hi <= lo {
			continue
		}
		x := c.x(int64(i)*tl.Width + tl.Width/2)
		fmt.Fprintf(&sb, "M%.1f %.1fV%.1f", x, base-lo*scale, base-hi*scale)
	}
	return sb.String()
}

func (c *canvas) barWidth(tl *timeline) float64 {
	return math.Max(float64(tl.Width)/float64(c.t1)*plotW*0.9, 1)
}

// throughput draws sends completed per second, stacked ok/info/fail.
func (c *canvas) throughput(tl *timeline) {
	const h = 110.0
	c.text(8, c.y+12, "sends per second", "start", "lane-head")
	top := c.y + 8
	base := top + h
	per := float64(tl.Width) / 1e9
	peak := 0.0
	for i := range tl.Bins {
		b := &tl.Bins[i]
		peak = math.Max(peak, float64(b.OK+b.Info+b.Fail)/per)
	}
	c.yAxis(top, base, fmt.Sprintf("%.0f/s", peak), "0")
	if peak > 0 {
		scale := h / peak
		sw := c.barWidth(tl)
		for _, s := range []struct {
			color string
			f     func(b *bin) (float64, float64)
		}{
			{"#3c9a5f", func(b *bin) (float64, float64) { return 0, float64(b.OK) / per }},
			{"#f39c12", func(b *bin) (float64, float64) { return float64(b.OK) / per, float64(b.OK+b.Info) / per }},
			{"#7b241c", func(b *bin) (float64, float64) {
				return float64(b.OK+b.Info) / per, float64(b.OK+b.Info+b.Fail) / per
			}},
		} {
			if d := c.bars(tl, base, scale, s.f); d != "" {
				c.add(el{Kind: "path", D: d, Stroke: s.color, SW: sw, Class: "sends"})
			}
		}
	}
	c.y = base + 14
}

// latency draws ok-send latency on a log scale (mean as a line, the
// bin's maximum as bars): stalls during a fault are seconds while normal
// sends are milliseconds, and a linear scale would hide one or the other.
func (c *canvas) latency(tl *timeline) {
	const h = 90.0
	c.text(8, c.y+12, "ok send latency", "start", "lane-head")
	top := c.y + 8
	base := top + h
	lo, hi := math.Inf(1), 0.0
	for i := range tl.Bins {
		if b := &tl.Bins[i]; b.LatN > 0 {
			lo = math.Min(lo, math.Max(float64(b.LatSum)/float64(b.LatN), 1e5))
			hi = math.Max(hi, float64(b.LatMax))
		}
	}
	if math.IsInf(lo, 1) {
		c.yAxis(top, base, "", "no ok sends")
		c.y = base + 14
		return
	}
	d0, d1 := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(math.Max(hi, lo*10)))
	y := func(ns float64) float64 {
		return base - (math.Log10(math.Max(ns, math.Pow(10, d0)))-d0)/(d1-d0)*h
	}
	for d := d0; d <= d1; d++ {
		c.text(left-6, y(math.Pow(10, d))+4, durLabel(math.Pow(10, d)), "end", "tick")
		c.add(el{Kind: "line", X: left, Y: y(math.Pow(10, d)), X2: left + plotW, Y2: y(math.Pow(10, d)), Stroke: "#eee", SW: 1})
	}
	var maxD, meanD strings.Builder
	pen := "M"
	half := c.barWidth(tl) / 2
	for i := range tl.Bins {
		b := &tl.Bins[i]
		if b.LatN == 0 {
			pen = "M"
			continue
		}
		x := c.x(int64(i)*tl.Width + tl.Width/2)
		fmt.Fprintf(&maxD, "M%.1f %.1fV%.1f", x, base, y(float64(b.LatMax)))
		ym := y(float64(b.LatSum) / float64(b.LatN))
		if pen == "M" {
			// A tick as wide as the bin keeps an isolated bin visible.
			fmt.Fprintf(&meanD, "M%.1f %.1fH%.1f", x-half, ym, x+half)
		} else {
			fmt.Fprintf(&meanD, "L%.1f %.1fH%.1f", x-half, ym, x+half)
		}
		pen = "L"
	}
	c.add(el{Kind: "path", D: maxD.String(), Stroke: "#d5dbe3", SW: c.barWidth(tl), Class: "lat-max"})
	c.add(el{Kind: "path", D: meanD.String(), Stroke: "#2c3e50", SW: 1.5, Class: "lat-mean"})
	c.y = base + 14
}

func durLabel(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%gs", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%gms", ns/1e6)
	}
	return fmt.Sprintf("%gµs", ns/1e3)
}

func (c *canvas) yAxis(top, base float64, hiLabel, loLabel string) {
	c.add(el{Kind: "line", X: left, Y: top, X2: left, Y2: base, Stroke: "#999", SW: 1})
	c.add(el{Kind: "line", X: left, Y: base, X2: left + plotW, Y2: base, Stroke: "#ccc", SW: 1})
	c.text(left-6, top+8, hiLabel, "end", "tick")
	c.text(left-6, base, loLabel, "end", "tick")
}

// offsets plots one partition's acked sends, offset against time of ack:
// the ones the checker found lost in red, the ones at a reused offset in
// orange, each with a tooltip giving its offsets.
func (c *canvas) offsets(tl *timeline, p *part) {
	const h = 110.0
	c.text(8, c.y+12, "acked offsets "+p.TP.String(), "start", "lane-head")
	top := c.y + 18
	base := top + h
	c.yAxis(top, base, fmt.Sprint(p.MaxOffset), "0")
	scale := h / math.Max(float64(p.MaxOffset), 1)
	i := tl.partIdx[p.TP]
	var acked strings.Builder
	var marks []el // drawn after the acked path, so on top of it
	sw := c.barWidth(tl)
	for j := range tl.Bins {
		b := &tl.Bins[j]
		if i >= len(b.Parts) {
			continue
		}
		x := c.x(int64(j)*tl.Width + tl.Width/2)
		ob := b.Parts[i]
		if s := ob.Acked; s.N > 0 {
			y0, y1 := base-float64(s.Min)*scale, base-float64(s.Max)*scale
			if y0-y1 < 2 {
				y0, y1 = y0+1, y1-1
			}
			fmt.Fprintf(&acked, "M%.1f %.1fV%.1f", x, y0, y1)
		}
		for _, m := range []struct {
			s            span
			class, color string
		}{{ob.Lost, "lost", "#e31a1c"}, {ob.Reused, "reused", "#ff8c00"}} {
			if m.s.N == 0 {
				continue
			}
			y0, y1 := base-float64(m.s.Min)*scale, base-float64(m.s.Max)*scale
			w := math.Max(sw, 4)
			marks = append(marks, el{Kind: "rect", X: x - w/2, Y: y1 - 2, W: w, H: y0 - y1 + 4, Fill: m.color, Class: m.class,
				Title: fmt.Sprintf("%d %s acked send(s), %s, acked at %s", m.s.N, m.class, offsetRange(m.s), secs(int64(j)*tl.Width))})
		}
	}
	if acked.Len() > 0 {
		c.add(el{Kind: "path", D: acked.String(), Stroke: "#5b7fa6", SW: sw, Class: "acked"})
	}
	c.doc.Els = append(c.doc.Els, marks...)
	for k, ep := range p.epochs() {
		if k == 0 {
			continue // the epoch the log starts with is no change
		}
		y := base - float64(ep[1])*scale
		c.add(el{Kind: "line", X: left, Y: y, X2: left + plotW, Y2: y, Stroke: "#8e44ad", SW: 1, Dash: "4 3", Class: "epoch-start"})
		c.text(left+4, y-3, fmt.Sprintf("final log: leader epoch %d from offset %d", ep[0], ep[1]), "start", "epoch-label")
	}
	c.y = base + 12
}

func offsetRange(s span) string {
	if s.Min == s.Max {
		return fmt.Sprintf("offset %d", s.Min)
	}
	return fmt.Sprintf("offsets %d-%d", s.Min, s.Max)
}
