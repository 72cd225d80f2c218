package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// shareLanes draws the share group on the timeline, under the partitions:
// per member a head row (its member faults as boxes, the ends of its
// client processes as black ticks) and one row per lane kind (acquired,
// accepted, released, rejected, ack refused or unknown), each bin a bar
// as tall as its count against the busiest bin of that kind over all
// members; then per partition the log end, the highest offset delivered
// and the start offsets the group reported.
func (c *canvas) shareLanes(s *shareScan, nem []nemOp) {
	if !s.used() {
		return
	}
	const rowH = 12.0
	c.text(8, c.y+12, fmt.Sprintf("share group %s on %s", s.group, s.topic), "start", "part-head")
	c.y += laneH + 2
	var peak [shKinds]int
	for _, l := range s.lanes {
		for _, b := range l.cnt.bins {
			for k := range b {
				peak[k] = max(peak[k], b[k])
			}
		}
	}
	for _, l := range s.members() {
		c.text(8, c.y+12, l.name, "start", "lane-head")
		for _, op := range nem {
			if op.Value.Details["member"] != l.name {
				continue
			}
			x0 := c.x(op.Start)
			c.rect(x0, c.y+2, math.Max(c.x(op.End)-x0, 3), laneH-4, faultColor(op.F), "member-fault",
				fmt.Sprintf("%s at %s to %s", describeOp(op), secs(op.Start), secs(op.End)))
		}
		for _, e := range l.ended {
			c.rect(c.x(e.at)-1, c.y+1, 2, laneH-2, "#000", "proc-end",
				fmt.Sprintf("%s: process p%d ended (%s info) at %s: its locks are released or expire", l.name, e.proc, e.op, secs(e.at)))
		}
		c.y += laneH
		for k := 0; k < shKinds; k++ {
			c.text(24, c.y+rowH-2, fmt.Sprintf("%s (%d)", shareRowNames[k], l.total[k]), "start", "lane")
			if peak[k] > 0 {
				if d := c.countBars(&l.cnt, k, c.y+rowH, (rowH-1)/float64(peak[k])); d != "" {
					c.add(el{Kind: "path", D: d, Stroke: shareRowColors[k], SW: c.countWidth(&l.cnt), Class: shareRowClasses[k]})
				}
			}
			c.y += rowH
		}
		c.y += 6
	}
	for _, p := range s.partitions() {
		c.shareProgress(s, p)
	}
}

// countBars is one row's path: a vertical stroke per bin with events of
// kind k, from base up by scale per event.
func (c *canvas) countBars(cn *counter, k int, base, scale float64) string {
	var sb strings.Builder
	for i, b := range cn.bins {
		if b[k] == 0 {
			continue
		}
		x := c.x(int64(i)*cn.width + cn.width/2)
		fmt.Fprintf(&sb, "M%.1f %.1fV%.1f", x, base, base-math.Max(float64(b[k])*scale, 1.5))
	}
	return sb.String()
}

func (c *canvas) countWidth(cn *counter) float64 {
	return math.Max(float64(cn.width)/float64(c.t1)*plotW*0.9, 3)
}

// shareProgress plots one partition of the share group's topic: the log
// end (acked sends), the highest offset delivered to a member and, where
// the group reported them, its share-partition start offsets (a purple
// mark each, with the final read's end beside it in the title).
func (c *canvas) shareProgress(s *shareScan, p int32) {
	const h = 70.0
	end, del := s.logEndOf(p), seriesOf(s.delivered, p)
	top := max(end.last(), del.last(), s.finalEnd[p], 1)
	for _, pt := range s.spso {
		top = max(top, pt.start[p])
	}
	c.text(8, c.y+12, fmt.Sprintf("share progress %s-%d", s.topic, p), "start", "lane-head")
	y0 := c.y + 18
	base := y0 + h
	c.yAxis(y0, base, fmt.Sprint(top), "0")
	y := func(v int64) float64 { return base - float64(v)/float64(top)*h }
	for _, ln := range []struct {
		s            *series
		color, class string
	}{{end, "#999", "share-log-end"}, {del, "#4a7fc1", "share-delivered"}} {
		if d := c.stepPath(ln.s, y); d != "" {
			c.add(el{Kind: "path", D: d, Stroke: ln.color, SW: 1.5, Class: ln.class})
		}
	}
	for _, pt := range s.spso {
		o, ok := pt.start[p]
		if !ok {
			continue
		}
		title := fmt.Sprintf("share-partition start offset %d at %s (the log end was %d", o, secs(pt.at), valueAt(end, pt.at))
		if fe, ok := s.finalEnd[p]; ok {
			title += fmt.Sprintf("; the final read's end %d", fe)
		}
		title += fmt.Sprintf("); drained: %s", yesNo(pt.done))
		c.rect(c.x(pt.at)-4, y(o)-4, 8, 8, "#8e44ad", "spso", title)
		c.text(c.x(pt.at)-6, y(o)+4, fmt.Sprintf("start %d", o), "end", "epoch-label")
	}
	c.y = base + 14
}

// stepPath draws a rising step function to the end of the axis.
func (c *canvas) stepPath(s *series, y func(int64) float64) string {
	if len(s.pts) == 0 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "M%.1f %.1f", c.x(s.pts[0][0]), y(s.pts[0][1]))
	for _, pt := range s.pts[1:] {
		fmt.Fprintf(&sb, "H%.1fV%.1f", c.x(pt[0]), y(pt[1]))
	}
	fmt.Fprintf(&sb, "H%.1f", c.x(c.t1))
	return sb.String()
}

// valueAt is the series' value at time t (-1 before its first point).
func valueAt(s *series, t int64) int64 {
	i, _ := slices.BinarySearchFunc(s.pts, t, func(p [2]int64, t int64) int {
		if p[0] <= t {
			return -1
		}
		return 1
	})
	if i == 0 {
		return -1
	}
	return s.pts[i-1][1]
}
