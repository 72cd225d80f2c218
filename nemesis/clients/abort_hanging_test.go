package clients

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// TestAbortHanging: abort-hanging aborts the transactions that hold a
// partition's last stable offset and that their coordinator does not hold
// open (find-hanging's rule), leaves the others to their coordinator,
// proves that the last stable offset moved, and does nothing where
// nothing is held back.
func TestAbortHanging(t *testing.T) {
	hanging := histories.OpenTxn{ProducerID: 7, ProducerEpoch: 3, CoordinatorEpoch: 5, FirstOffset: 10, Hanging: true,
		TransactionalID: "tx-0", CoordinatorState: "CompleteCommit"}
	ongoing := histories.OpenTxn{ProducerID: 8, ProducerEpoch: 1, FirstOffset: 12, CoordinatorState: "Ongoing"}
	lso := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name       string
		lso        *int64
		open       []histories.OpenTxn
		deaf       bool
		wantAborts []string
		wantType   histories.Type
		wantErr    string
		wantDetail string
	}{
		{"nothing held back", nil, nil, false, nil, histories.OK, "", "no partition's last stable offset was held back"},
		{"a hanging transaction is aborted and readers move", lso(10), []histories.OpenTxn{hanging}, false,
			[]string{"t-0 pid 7 epoch 3 coord 5"}, histories.OK, "", `"lso_after":20`},
		{"a transaction its coordinator holds open is left to it", lso(12), []histories.OpenTxn{ongoing}, false,
			nil, histories.OK, "", `"producer_id":8`},
		{"an abort without effect is info", lso(10), []histories.OpenTxn{hanging}, true,
			[]string{"t-0 pid 7 epoch 3 coord 5"}, histories.Info, "no effect: partition 0's last stable offset still 10", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a *fakeAdmin
			evs := recorded(t, func(env *nemesis.Env, c *fakeCluster, fa *fakeAdmin) {
				a = fa
				fa.HW, fa.LSO, fa.Open, fa.AbortDeaf = 20, tc.lso, tc.open, tc.deaf
				f, err := nemesis.NewFault(nemesis.Step{Fault: histories.FAbortHanging})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				err = env.Inject(ctx, f)
				if (err != nil) != (tc.wantErr != "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
					t.Errorf("inject: %v, want %q", err, tc.wantErr)
				}
			})
			if strings.Join(a.Aborts, ";") != strings.Join(tc.wantAborts, ";") {
				t.Errorf("aborts %v, want %v", a.Aborts, tc.wantAborts)
			}
			var done *histories.Event
			for i := range evs {
				if evs[i].F == histories.FAbortHanging && evs[i].Type != histories.Invoke {
					done = &evs[i]
				}
			}
			if done == nil || done.Type != tc.wantType {
				t.Fatalf("completion %+v, want %s", done, tc.wantType)
			}
			var v histories.NemesisValue
			_ = done.Decode(&v)
			b, _ := json.Marshal(v.Details)
			if tc.wantDetail != "" && !strings.Contains(string(b), tc.wantDetail) {
				t.Errorf("details %s, want %s", b, tc.wantDetail)
			}
		})
	}
}

// TestStopProducers: the step asks the workload's clients to stop
// producing, once, with their details; without clients it fails, named.
func TestStopProducers(t *testing.T) {
	fc := &fakeClients{n: 2}
	evs := recorded(t, func(env *nemesis.Env, c *fakeCluster, a *fakeAdmin) {
		env.Clients = fc
		if err := (&nemesis.Runner{Env: env, HealTimeout: time.Second}).Run(context.Background(),
			nemesis.Schedule{Steps: []nemesis.Step{{Fault: histories.FStopProducers}}}); err != nil {
			t.Fatal(err)
		}
	})
	if fc.stops != 1 {
		t.Errorf("stops %d", fc.stops)
	}
	ok := 0
	for _, e := range evs {
		if e.F == histories.FStopProducers && e.Type == histories.OK {
			ok++
		}
	}
	if ok != 1 {
		t.Errorf("%d ok stop-producers ops: %s", ok, summary(evs))
	}
	env, _, _ := newFakeEnv()
	f, _ := nemesis.NewFault(nemesis.Step{Fault: histories.FStopProducers})
	if err := env.Inject(context.Background(), f); err == nil || !strings.Contains(err.Error(), "no workload producers to stop") {
		t.Errorf("without clients: %v", err)
	}
}
