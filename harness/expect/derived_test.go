package expect

import (
	"strings"
	"testing"

	"github.com/kchaos/kchaos/histories"
)

// TestParseBound: a check may compare a metric with a bound derived from
// the run's settings, named on the right; a derived name on the left, or
// a right side that is neither a number nor a derived bound, is refused
// with the names it could have been.
func TestParseBound(t *testing.T) {
	for _, tc := range []struct {
		expr      string
		want      string // String() of the check, or the error's substring
		wantErr   bool
		invariant bool
	}{
		{"offline_seconds < isr_shrink_bound_seconds", "offline_seconds < isr_shrink_bound_seconds", false, true},
		{" offline_seconds<=isr_shrink_bound_seconds ", "offline_seconds <= isr_shrink_bound_seconds", false, true},
		{"offline_seconds > isr_shrink_bound_seconds", "offline_seconds > isr_shrink_bound_seconds", false, false},
		{"offline_seconds < isr_bound", "nor a bound derived from the run's settings (isr_shrink_bound_seconds)", true, false},
		{"isr_shrink_bound_seconds > 3", "not a measurement: write it on the right", true, false},
		{"offline_second < isr_shrink_bound_seconds", "unknown metric", true, false},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			c, err := Parse(tc.expr, nil)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Parse = %v, %v; want error containing %q", c, err, tc.want)
				}
				return
			}
			if err != nil || c.String() != tc.want {
				t.Fatalf("Parse = %q, %v; want %q", c.String(), err, tc.want)
			}
			if c.Bound != ISRShrinkBoundSeconds || c.Value != 0 {
				t.Errorf("Bound %q Value %g; want the derived bound and no number", c.Bound, c.Value)
			}
			if c.Invariant() != tc.invariant {
				t.Errorf("Invariant() = %v, want %v", c.Invariant(), tc.invariant)
			}
		})
	}
}

// TestDerive: the bound is the slowest broker's replica.lag.time.max.ms
// (Kafka's default where a broker does not set it) plus the producers'
// request timeout plus a second; a run.json that cannot give it leaves
// it out, saying why.
func TestDerive(t *testing.T) {
	brokers := func(vals ...string) map[int32]map[string]string {
		out := map[int32]map[string]string{}
		for i, v := range vals {
			out[int32(i)] = map[string]string{"num.io.threads": "2"}
			if v != "" {
				out[int32(i)]["replica.lag.time.max.ms"] = v
			}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		info    histories.RunInfo
		want    float64 // 0: not derived
		problem string
	}{
		{"kchaos's render: 4 s lag, 3 s timeout", histories.RunInfo{BrokerConfigs: brokers("4000", "4000", "4000"),
			Producer: histories.ProducerInfo{RequestTimeoutMS: 3000}}, 8, ""},
		{"the slowest broker counts", histories.RunInfo{BrokerConfigs: brokers("4000", "10000"),
			Producer: histories.ProducerInfo{RequestTimeoutMS: 5000}}, 16, ""},
		{"unset: Kafka's default 30 s", histories.RunInfo{BrokerConfigs: brokers(""),
			Producer: histories.ProducerInfo{RequestTimeoutMS: 3000}}, 34, ""},
		{"no broker configs (ssh without service.config)", histories.RunInfo{Producer: histories.ProducerInfo{RequestTimeoutMS: 3000}}, 0, "no broker configs"},
		{"an older run.json: no request timeout", histories.RunInfo{BrokerConfigs: brokers("4000")}, 0, "no producer request timeout"},
		{"a bad value", histories.RunInfo{BrokerConfigs: brokers("4s"),
			Producer: histories.ProducerInfo{RequestTimeoutMS: 3000}}, 0, `broker 0: replica.lag.time.max.ms "4s"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, problems := Derive(tc.info)
			got, ok := m[ISRShrinkBoundSeconds]
			if tc.want == 0 {
				if ok || len(problems) != 1 || !strings.Contains(problems[0], tc.problem) {
					t.Errorf("Derive = %v, %q; want no bound and a problem containing %q", m, problems, tc.problem)
				}
				return
			}
			if !ok || got != tc.want || len(problems) != 0 {
				t.Errorf("Derive = %v, %q; want %g", m, problems, tc.want)
			}
		})
	}
}

// TestJudgeBound: the bound's value in the run decides, and the result
// names it; a run whose settings gave no bound cannot be judged on it.
func TestJudgeBound(t *testing.T) {
	c := must(t, "offline_seconds < isr_shrink_bound_seconds", nil)
	for _, tc := range []struct {
		name    string
		metrics Metrics
		want    Status
		text    string
	}{
		{"d1 on 4.4.0: 6.5 s under 8", Metrics{OfflineSeconds: 6.5, ISRShrinkBoundSeconds: 8},
			Match, "offline_seconds < isr_shrink_bound_seconds (8): got 6.5"},
		{"beyond the bound stays red", Metrics{OfflineSeconds: 9.2, ISRShrinkBoundSeconds: 8},
			Differ, "offline_seconds < isr_shrink_bound_seconds (8): got 9.2 (differs)"},
		{"no bound: unjudged", Metrics{OfflineSeconds: 6.5},
			Unjudged, "offline_seconds < isr_shrink_bound_seconds: not measured"},
		{"no metric: unjudged", Metrics{ISRShrinkBoundSeconds: 8},
			Unjudged, "offline_seconds < isr_shrink_bound_seconds: not measured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, rs := Judge([]Check{c}, nil, tc.metrics)
			if st != tc.want || len(rs) != 1 || rs[0].String() != tc.text {
				t.Errorf("Judge = %s %v; want %s %q", st, rs, tc.want, tc.text)
			}
		})
	}
}
