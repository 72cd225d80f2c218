// Package progress is what a kchaos command shows while it works: one
// line per phase of a run (cluster, topic, workload with ops/s and errors,
// nemesis step k of n, heal, final read, check, report, teardown),
// updating in place on a terminal and as plain lines otherwise, or as JSON
// records; and the log lines beside them, with fault details readable.
package progress

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/kchaos/kchaos/workloads"
)

// Phase is one stage of a run.
type Phase string

// The phases of a run, in order.
const (
	Cluster   Phase = "cluster"
	Topic     Phase = "topic"
	Workload  Phase = "workload"
	Nemesis   Phase = "nemesis"
	Heal      Phase = "heal"
	FinalRead Phase = "final read"
	Check     Phase = "check"
	Report    Phase = "report"
	Teardown  Phase = "teardown"
)

// Event is one progress update.
type Event struct {
	Phase Phase
	// Text says what is happening or happened, in words.
	Text string
	// Done marks the phase's last event.
	Done bool
	// Failed marks a phase that ended in an error (Text says which).
	Failed bool
	// Stats, for workload events.
	Stats *workloads.Stats
	// Step (1-based) of Steps, for nemesis events.
	Step, Steps int
}

// Sink receives events; it must be safe for concurrent use.
type Sink interface{ Event(Event) }

// Func adapts a function to a Sink.
type Func func(Event)

// Event calls f(e).
func (f Func) Event(e Event) { f(e) }

// Discard drops every event.
var Discard Sink = Func(func(Event) {})

// line is e in words, e.g. "workload: 1,204 ops/s, acked 48,122, failed 10,
// indeterminate 2; errors NOT_ENOUGH_REPLICAS 10" or "nemesis step 3 of 8:
// kill (nodes 0)".
func (e Event) line() string {
	var b strings.Builder
	switch {
	case e.Phase == Nemesis && e.Steps > 0 && e.Step <= e.Steps:
		fmt.Fprintf(&b, "nemesis step %d of %d", e.Step, e.Steps)
	default:
		b.WriteString(string(e.Phase))
	}
	text := e.Text
	if e.Stats != nil {
		text = statsText(*e.Stats)
	}
	if text != "" {
		b.WriteString(": ")
		b.WriteString(text)
	}
	return b.String()
}

// statsText is a workload's progress in words.
func statsText(st workloads.Stats) string {
	var b strings.Builder
	if st.Txns > 0 {
		// A transactional workload's ops are transactions.
		fmt.Fprintf(&b, "%s, %s ops/s, transactions committed %s, aborted %s, unknown %s",
			st.Elapsed.Round(time.Second), count(int64(st.OpsPerSec+0.5)), count(st.TxnCommitted), count(st.TxnAborted), count(st.TxnUnknown))
		if st.TxnCrashes > 0 || st.TxnFenced > 0 {
			fmt.Fprintf(&b, " (crashes %s, fenced %s)", count(st.TxnCrashes), count(st.TxnFenced))
		}
	} else {
		fmt.Fprintf(&b, "%s, %s ops/s, acked %s, failed %s, indeterminate %s",
			st.Elapsed.Round(time.Second), count(int64(st.OpsPerSec+0.5)), count(st.Acked), count(st.Failed), count(st.Indeterminate))
	}
	if names := st.ErrorNames(); len(names) > 0 {
		b.WriteString("; errors")
		for i, n := range names {
			if i == 3 {
				fmt.Fprintf(&b, " and %d more", len(names)-3)
				break
			}
			sep := " "
			if i > 0 {
				sep = ", "
			}
			fmt.Fprintf(&b, "%s%s %s", sep, n, count(st.Errors[n]))
		}
	}
	return b.String()
}

// count writes n with thousands separators.
func count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// Readable writes a value as a person reads it: maps as "{k: v, ...}" with
// sorted keys, slices as "[a b]", durations rounded, strings bare.
func Readable(v any) string {
	if v == nil {
		return "-"
	}
	switch x := v.(type) {
	case string:
		return x
	case time.Duration:
		return x.Round(time.Millisecond).String()
	case fmt.Stringer:
		return x.String()
	case error:
		return x.Error()
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		keys := rv.MapKeys()
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, Readable(k.Interface())+": "+Readable(rv.MapIndex(k).Interface()))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ", ") + "}"
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return "[]"
		}
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = Readable(rv.Index(i).Interface())
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Pointer:
		if rv.IsNil() {
			return "-"
		}
		return Readable(rv.Elem().Interface())
	case reflect.Struct:
		t := rv.Type()
		var parts []string
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() || rv.Field(i).IsZero() {
				continue
			}
			parts = append(parts, strings.ToLower(t.Field(i).Name)+": "+Readable(rv.Field(i).Interface()))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}
