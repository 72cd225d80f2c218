package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/histories"
)

// band is a fault drawn as a shaded span of the timeline: from the fault's
// invoke to the completion of the op that undid it (heal, resume, start),
// or to the end of the history if nothing undid it. Faults that act once
// (set-config, elect-unclean, restart, ...) span their own invoke to
// completion, which the chart widens to a visible stripe.
type band struct {
	Kind       string
	Label      string
	Nodes      []int32
	Start, End int64
	Open       bool // never undone before the history ended
	Instant    bool
	Detail     string
}

// Which faults last, which ops undo them and which heal covers which
// fault are the history's vocabulary: histories.LookupFault.

// bands pairs nemesis ops into fault bands. Ops that ended in fail did
// not happen and get no band; ops that only undo (heal, resume, start)
// close bands and get none of their own.
func bands(ops []nemOp, end int64) []band {
	var out []band
	open := map[int]bool{} // indexes into out of lasting faults not yet undone
	for _, op := range ops {
		if op.Type == histories.Fail {
			continue
		}
		for i := range open {
			b := &out[i]
			if !undoes(op, b) {
				continue
			}
			b.End, b.Open = op.End, false
			delete(open, i)
		}
		switch {
		case histories.KindOf(op.F) == histories.Lasting:
			b := newBand(op)
			if op.F == histories.FLoseUnflushed && truthy(op.Value.Details["start"]) {
				b.End = op.End // the op started the broker again itself
			} else {
				b.End, b.Open = end, true
				open[len(out)] = true
			}
			out = append(out, b)
		case histories.KindOf(op.F) == histories.Undo:
			// undo-only ops are not faults of their own
		default:
			b := newBand(op)
			b.Instant = true
			out = append(out, b)
		}
	}
	return out
}

// undoes reports whether op ends the lasting fault b: the op's kind must
// undo b's kind and, when both name nodes, they must share one.
func undoes(op nemOp, b *band) bool {
	return histories.Ends(op.F, op.Value.Fault, op.Value.Nodes, b.Kind, b.Nodes)
}

func newBand(op nemOp) band {
	b := band{Kind: op.F, Nodes: op.Value.Nodes, Start: op.Start, End: op.End}
	b.Label = op.F
	if f, ok := histories.LookupFault(op.F); ok {
		b.Label = f.Label
	}
	if len(op.Value.Nodes) > 0 {
		b.Label += " " + nodeList(op.Value.Nodes)
	}
	if m, ok := op.Value.Details["model"].(string); ok && m != "" {
		b.Label += " (" + m + ")" // a power loss's model: recovery-point or writeback
	}
	b.Detail = describeOp(op)
	return b
}

// describeOp is a one-line account of a nemesis op for tables and
// tooltips: what, on which nodes, with which details, and how it ended.
func describeOp(op nemOp) string {
	var sb strings.Builder
	sb.WriteString(op.F)
	if op.Value.Fault != "" && op.Value.Fault != op.F {
		sb.WriteString(" (" + op.Value.Fault + ")")
	}
	if len(op.Value.Nodes) > 0 {
		sb.WriteString(" nodes " + nodeList(op.Value.Nodes))
	}
	if len(op.Value.Details) > 0 {
		keys := slices.Sorted(maps.Keys(op.Value.Details))
		var kv []string
		for _, k := range keys {
			kv = append(kv, fmt.Sprintf("%s=%v", k, op.Value.Details[k]))
		}
		sb.WriteString("; " + strings.Join(kv, ", "))
	}
	switch op.Type {
	case "":
		sb.WriteString("; no completion recorded")
	case histories.OK:
	default:
		sb.WriteString("; ended " + string(op.Type))
	}
	return sb.String()
}

func nodeList(ns []int32) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return "[" + strings.Join(s, ",") + "]"
}

func truthy(v any) bool {
	switch t := v.(type) {
	case bool:
		return t
	case string:
		return t == "true" || t == "yes"
	}
	return false
}
