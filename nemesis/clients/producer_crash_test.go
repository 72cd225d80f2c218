package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// fakeClients records the crashes the nemesis asks for.
type fakeClients struct {
	n       int
	crashes []string
	stops   int
	err     error
}

func (c *fakeClients) Producers() int { return c.n }

func (c *fakeClients) StopProducers(context.Context) (map[string]any, error) {
	c.stops++
	return map[string]any{"producers": c.n}, c.err
}

func (c *fakeClients) CrashProducer(_ context.Context, i int, down time.Duration) (map[string]any, error) {
	c.crashes = append(c.crashes, fmt.Sprintf("%d for %s", i, down))
	return map[string]any{"producer": i, "processes_before": []int{3}, "processes_after": []int{7}}, c.err
}

// TestProducerCrash: the step crashes the producer it names (or one drawn
// from the seed), recorded as a producer-crash op on the nemesis process
// with the workload's details and no node; without the workload's
// clients it fails, named.
func TestProducerCrash(t *testing.T) {
	one := 1
	fc := &fakeClients{n: 3}
	evs := recorded(t, func(env *nemesis.Env, c *fakeCluster, a *fakeAdmin) {
		env.Clients = fc
		s := nemesis.Schedule{Steps: []nemesis.Step{{Fault: histories.FProducerCrash, Params: &ProducerCrashParams{Producer: &one, Down: nemesis.Duration(2 * time.Second)}}, {Fault: histories.FProducerCrash}}}
		if err := (&nemesis.Runner{Env: env, HealTimeout: time.Second}).Run(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	})
	if len(fc.crashes) != 2 || fc.crashes[0] != "1 for 2s" || !strings.HasSuffix(fc.crashes[1], " for 0s") {
		t.Errorf("crashes %v", fc.crashes)
	}
	n := 0
	for _, e := range evs {
		if e.F != histories.FProducerCrash {
			continue
		}
		var v histories.NemesisValue
		_ = e.Decode(&v)
		if e.Process != histories.NemesisProcess || len(v.Nodes) != 0 {
			t.Errorf("op %+v", e)
		}
		if e.Type == histories.OK {
			n++
			if fmt.Sprint(v.Details["processes_after"]) != "[7]" {
				t.Errorf("details %v", v.Details)
			}
		}
		if e.Type == histories.Invoke && n == 0 && fmt.Sprint(v.Details) != "map[for:2s producer:1]" {
			t.Errorf("invoke spec %v", v.Details)
		}
	}
	if n != 2 {
		t.Errorf("%d ok producer-crash ops: %s", n, summary(evs))
	}
	if k := histories.KindOf(histories.FProducerCrash); k != histories.Instant {
		t.Errorf("kind %s", k)
	}

	env, _, _ := newFakeEnv()
	f, _ := nemesis.NewFault(nemesis.Step{Fault: histories.FProducerCrash})
	if err := env.Inject(context.Background(), f); err == nil || !strings.Contains(err.Error(), "no workload producers to crash") {
		t.Errorf("without clients: %v", err)
	}
	env.Clients = &fakeClients{n: 1}
	f, _ = nemesis.NewFault(nemesis.Step{Fault: histories.FProducerCrash, Params: &ProducerCrashParams{Producer: &one}})
	if err := env.Inject(context.Background(), f); err == nil || !strings.Contains(err.Error(), "producer 1: the workload has producers 0..0") {
		t.Errorf("producer out of range: %v", err)
	}
}

func TestProducerCrashValidation(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"valid", "steps:\n - fault: producer-crash\n   producer: 0\n   for: 3s", ""},
		{"valid drawn", "steps:\n - fault: producer-crash", ""},
		{"negative", "steps:\n - fault: producer-crash\n   producer: -1", "nemesis.steps[0].producer: must not be negative"},
		{"for too long", "steps:\n - fault: producer-crash\n   for: 11m", "nemesis.steps[0].for: want 0 to 10m"},
		{"target", "steps:\n - fault: producer-crash\n   target: {role: leader}", "nemesis.steps[0].target: producer-crash takes producer: N"},
		{"producer on kill", "steps:\n - fault: kill\n   target: {role: leader}\n   producer: 0", "nemesis.steps[0].producer: only for fault producer-crash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := nemesis.ParseSchedule([]byte(tc.yaml))
			wantErr(t, err, tc.want)
		})
	}
}
