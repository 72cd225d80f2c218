package scenario

import (
	"fmt"
	"reflect"
	"time"

	"github.com/kchaos/kchaos/internal/bounds"
)

// checkBounds reports the counts and totals over their bounds
// (internal/bounds): the topic's partitions, its assignment, the
// schedule's steps and their time in all. Validate runs it first and
// stops at its problems, because the other checks size what they build
// (an assignment per partition, a problem per step) from these values.
func (s *Scenario) checkBounds() []error {
	var errs []error
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	if p := s.Topic.Partitions; p > bounds.Partitions {
		add("topic.partitions", "%d: want 1..%d", p, bounds.Partitions)
	}
	if n := len(s.Topic.Assignment); n > bounds.Partitions {
		add("topic.assignment", "%d replica lists: want at most %d (one per partition)", n, bounds.Partitions)
	}
	if n := len(s.Nemesis.Steps); n > bounds.Steps {
		add("nemesis.steps", "%d steps: want at most %d", n, bounds.Steps)
	} else if total := sumDurations(reflect.ValueOf(s.Nemesis.Steps)); total > bounds.Schedule {
		add("nemesis.steps", "the waits and timeouts add up to more than %s: want at most %s in all (a week), as each alone",
			bounds.Schedule, bounds.Schedule)
	}
	return errs
}

// sumDurations adds up every duration in v of at most bounds.Duration,
// stopping past bounds.Schedule: the time a schedule can hold the cluster
// at most.
func sumDurations(v reflect.Value) time.Duration {
	var total time.Duration
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if total > bounds.Schedule {
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Int64:
			// One over bounds.Duration is its own problem, by its path
			// (walkNumbers): not counted here.
			if d := time.Duration(v.Int()); v.Type() == durationType && d > 0 && d <= bounds.Duration {
				total += d
			}
		}
	}
	walk(v)
	return total
}
