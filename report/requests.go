package report

import (
	"fmt"

	"github.com/kchaos/kchaos/histories/pass"
)

// Request faults' actions (request events) on the report's timeline: a
// request fault's band says when its rule was in place, and the action
// is when it struck (a rule waits for the request it selects), so each
// action is a tick in a "requests" lane under the fault lane, in its
// fault's colour, titled with what it did, and a row of the Faults table
// at its time.

// maxRequestRows bounds the actions the Faults table lists, and
// maxRequestTicks those the timeline draws: a rule with a probability
// may act on thousands of requests. The history holds every one.
const (
	maxRequestRows  = 50
	maxRequestTicks = 2000
)

// requestDesc is a one-line account of a request action for the Faults
// table and the tick's title: "request (drop-response): drop-response of
// ShareAcknowledge v2 (correlation id 24) from kchaos-p4-share-0 to
// broker 0 (the broker had answered NONE)".
func requestDesc(r pass.Request) string {
	return fmt.Sprintf("request (%s): %s", r.Fault, r.Action)
}

// faultRows are the Faults table's rows: the nemesis ops and the request
// actions, by time (an action before an op invoked later), the actions
// past maxRequestRows counted in a last row.
func faultRows(ops []nemOp, reqs []pass.Request) []nemRow {
	var out []nemRow
	i, listed := 0, 0
	for _, op := range ops {
		for ; i < len(reqs) && reqs[i].Time < op.Start; i++ {
			if listed < maxRequestRows {
				out = append(out, requestRow(reqs[i]))
				listed++
			}
		}
		out = append(out, nemRow{secs(op.Start), secs(op.End), describeOp(op)})
	}
	for ; i < len(reqs); i++ {
		if listed < maxRequestRows {
			out = append(out, requestRow(reqs[i]))
			listed++
		}
	}
	if n := len(reqs) - listed; n > 0 {
		out = append(out, nemRow{"", "", fmt.Sprintf("%d more request actions, not listed (history.jsonl has each as a request event)", n)})
	}
	return out
}

func requestRow(r pass.Request) nemRow {
	at := secs(r.Time)
	return nemRow{at, at, requestDesc(r)}
}

// requestLane draws the request actions as ticks, one lane under the
// faults; nothing without any.
func (c *canvas) requestLane(rs []pass.Request) {
	if len(rs) == 0 {
		return
	}
	c.text(8, c.y+12, "requests", "start", "lane-head")
	for i, r := range rs {
		if i == maxRequestTicks {
			break
		}
		c.rect(c.x(r.Time)-1.5, c.y+2, 3, laneH-4, faultColor(r.Fault), "request-action", secs(r.Time)+": "+requestDesc(r))
	}
	c.y += laneH + 6
}
