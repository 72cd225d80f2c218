package linearize

import (
	"bytes"
	"cmp"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/kchaos/kchaos/checker/logmodel"
	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/internal/owned"
)

// Linearizable is porcupine's verdict on the partition logs (see package logmodel).
type Linearizable struct {
	// Result is "ok", "illegal", "unknown" (the search ran out of time) or
	// "skipped".
	Result string `json:"result"`
	// WindowOffsets is the offsets per porcupine partition; 0 when each
	// topic-partition was checked whole.
	WindowOffsets int64                    `json:"window_offsets,omitempty"`
	Partitions    map[string]*LinPartition `json:"partitions,omitempty"`
}

// LinPartition is the verdict on one topic-partition.
type LinPartition struct {
	Result  string   `json:"result"`
	Ops     int      `json:"ops"`
	Windows int      `json:"windows"`
	Illegal []Window `json:"illegal_windows,omitempty"`
	// Visualization is porcupine's HTML file, beside results.json.
	Visualization string `json:"visualization,omitempty"`
	// RealTime is the first real-time order violation of the appends.
	RealTime *RealTimeViolation `json:"real_time,omitempty"`
}

// infinity is the return time of an op that never returned.
const infinity = logmodel.Infinity

// seg is the records of one read on one partition.
type seg struct {
	op         *model.Read
	start, end int32
}

func (a *run) linearizability() *Linearizable {
	c := a.h
	budget := a.cfg.Timeout
	if budget <= 0 {
		budget = DefaultPorcupineTimeout
	}
	deadline := time.Now().Add(budget)
	small := c.Clients <= SmallHistory
	window := int64(0)
	if !small {
		window = a.cfg.Window
		if window <= 0 {
			window = DefaultWindow
		}
	}
	out := &Linearizable{Result: "ok", WindowOffsets: window, Partitions: map[string]*LinPartition{}}
	segs := a.segments()
	model := logmodel.Model(func(v int32) string { return c.Vals[v].Str })
	// The partitions are independent: each is built and searched on its
	// own goroutine (porcupine was most of a large check's judging, one
	// core busy and the other idle), and gathered in partition order, so
	// the result is the sequential one.
	a.ackApp = make([]int32, len(c.Sends))
	parts := make([]tpLin, len(c.TPs))
	forEach(len(c.TPs), func(tp int) {
		if c.IsTxnTP(int32(tp)) {
			return // not modelled: see LeftOut
		}
		pl := &parts[tp]
		ops, wins, rt := a.linOps(int32(tp), segs[tp], window)
		if len(ops) == 0 {
			return
		}
		lp := &LinPartition{Ops: len(ops), Windows: len(wins)}
		pl.lp = lp
		lp.Result = a.checkPartition(model, int32(tp), ops, wins, small, deadline, lp, &pl.reasons)
		if rt != nil {
			// The direct real-time check (see realTime) holds across
			// windows: a violation it finds is one, however the model was cut.
			lp.RealTime, lp.Result = rt, "illegal"
		}
	})
	for tp := range c.TPs {
		lp := parts[tp].lp
		if lp == nil {
			continue
		}
		a.reasons = append(a.reasons, parts[tp].reasons...)
		out.Partitions[c.TPs[tp].Name()] = lp
		switch {
		case lp.Result == "illegal":
			out.Result = "illegal"
			t := c.TPs[tp]
			a.entries = append(a.entries, NonlinearizableEntry{
				Topic: t.Topic, Partition: t.Partition, Windows: lp.Illegal, Visualization: lp.Visualization, RealTime: lp.RealTime})
		case lp.Result == "unknown" && out.Result == "ok":
			out.Result = "unknown"
		}
	}
	return out
}

// tpLin is one partition's verdict, made on its own goroutine.
type tpLin struct {
	lp      *LinPartition // nil: not modelled, or no ops
	reasons []string      // visualizations that could not be written
}

// forEach runs f(0..n-1) on as many goroutines as Go runs at once.
func forEach(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		}()
	}
	wg.Wait()
}

func remaining(deadline time.Time) time.Duration {
	return max(time.Until(deadline), time.Millisecond)
}

// checkPartition runs porcupine on one topic-partition, finds the windows
// that fail and writes the visualizations.
func (a *run) checkPartition(model porcupine.Model, tp int32, ops []porcupine.Operation,
	wins map[int64]*Window, small bool, deadline time.Time, lp *LinPartition, reasons *[]string) string {
	if time.Now().After(deadline) {
		return "unknown"
	}
	dir := a.cfg.VisualizeDir
	if small && sameOffset(ops) {
		for _, w := range sortedWindows(wins) {
			lp.Illegal = append(lp.Illegal, *w)
		}
		return "illegal"
	}
	if small {
		var res porcupine.CheckResult
		if dir == "" {
			res = porcupine.CheckOperationsTimeout(model, ops, remaining(deadline))
		} else {
			var info porcupine.LinearizationInfo
			res, info = porcupine.CheckOperationsVerbose(model, ops, remaining(deadline))
			if res == porcupine.Illegal {
				lp.Visualization = a.visualize(model, info, tp, dir, reasons)
			}
		}
		if res == porcupine.Illegal {
			for _, w := range sortedWindows(wins) {
				lp.Illegal = append(lp.Illegal, *w)
			}
		}
		return linWord(res)
	}
	// Each window on its own: a window with two appends at one offset is
	// illegal without a search (the model never applies two appends at one
	// offset), which keeps hostile histories near-linear.
	byWin := model.Partition(ops)
	// A window is one porcupine partition already: without Partition,
	// porcupine takes it whole rather than partitioning it again (a map
	// lookup and a copy per op), and finds the same.
	whole := model
	whole.Partition, whole.PartitionEvent = nil, nil
	var bad []porcupine.Operation
	unknown := false
	for _, wops := range byWin {
		if time.Now().After(deadline) {
			unknown = true
			break
		}
		if !sameOffset(wops) {
			switch porcupine.CheckOperationsTimeout(whole, wops, remaining(deadline)) {
			case porcupine.Ok:
				continue
			case porcupine.Unknown:
				unknown = true
				continue
			}
		}
		lp.Illegal = append(lp.Illegal, *wins[wops[0].Input.(*logmodel.Op).Win])
		if len(bad)+len(wops) <= SmallHistory && !sameOffset(wops) {
			bad = append(bad, wops...)
		}
	}
	if len(lp.Illegal) == 0 {
		if unknown {
			return "unknown"
		}
		return "ok"
	}
	slices.SortFunc(lp.Illegal, func(x, y Window) int { return cmp.Compare(x.FirstOffset, y.FirstOffset) })
	if dir != "" && len(bad) > 0 {
		if r, info := porcupine.CheckOperationsVerbose(model, bad, remaining(deadline)); r == porcupine.Illegal {
			lp.Visualization = a.visualize(model, info, tp, dir, reasons)
		}
	}
	return "illegal"
}

// sameOffset reports whether two appends of ops claim one offset: the
// model can apply only one of them, so the ops are illegal.
// Sorting the offsets costs a fraction of a map insert per append (the
// map was a tenth of a large check's porcupine time).
func sameOffset(ops []porcupine.Operation) bool {
	offs := make([]int64, 0, len(ops))
	for i := range ops {
		if in := ops[i].Input.(*logmodel.Op); in.Kind == logmodel.Append {
			offs = append(offs, in.Off)
		}
	}
	slices.Sort(offs)
	for i := 1; i < len(offs); i++ {
		if offs[i] == offs[i-1] {
			return true
		}
	}
	return false
}

func linWord(r porcupine.CheckResult) string {
	switch r {
	case porcupine.Ok:
		return "ok"
	case porcupine.Illegal:
		return "illegal"
	}
	return "unknown"
}

func sortedWindows(wins map[int64]*Window) []*Window {
	out := make([]*Window, 0, len(wins))
	for _, w := range wins {
		out = append(out, w)
	}
	slices.SortFunc(out, func(x, y *Window) int { return cmp.Compare(x.FirstOffset, y.FirstOffset) })
	return out
}

// VisualizationName is the file porcupine's HTML of a partition goes to.
func VisualizationName(topic string, partition int32) string {
	safe := strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, topic)
	return fmt.Sprintf("%s%s-%d%s", VisualizationPrefix, safe, partition, VisualizationSuffix)
}

// A visualization's name is VisualizationPrefix, the topic and the
// partition, and VisualizationSuffix (after a history's own prefix for a
// history not named history.jsonl): how `kchaos check` finds the pages it
// may rewrite before it writes any.
const (
	VisualizationPrefix = "linearizability-"
	VisualizationSuffix = ".html"
)

func (a *run) visualize(model porcupine.Model, info porcupine.LinearizationInfo, tp int32, dir string, reasons *[]string) string {
	t := a.h.TPs[tp]
	name := a.cfg.Prefix + VisualizationName(t.Topic, t.Partition)
	// Rendered in memory, then written as kchaos writes every output
	// (internal/owned): porcupine's own VisualizePath would follow a link.
	var page bytes.Buffer
	err := porcupine.Visualize(model, info, &page)
	if err == nil {
		err = owned.Write(filepath.Join(dir, name), page.Bytes())
	}
	if err != nil {
		*reasons = append(*reasons, fmt.Sprintf("could not write %s: %v", name, err))
		return ""
	}
	return name
}

// segments cuts every read into its partitions' records. Final reads
// other than the one a partition is judged by, and unfinished final reads
// that returned records, count as plain reads.
func (a *run) segments() [][]seg {
	c := a.h
	out := make([][]seg, len(c.TPs))
	for k, ops := range [][]model.Read{c.Polls, c.Finals, c.Partials} {
		for i := range ops {
			op := &ops[i]
			for j := op.Start; j < op.End; {
				e, tp := j, c.Recs[j].TP
				for e < op.End && c.Recs[e].TP == tp {
					e++
				}
				if k != 1 || c.TPs[tp].Final != int32(i) {
					out[tp] = append(out[tp], seg{op: op, start: j, end: e})
				}
				j = e
			}
		}
	}
	return out
}
