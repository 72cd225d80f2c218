package workloads

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
)

// fakeGroupView answers OffsetFetch with errs first, then offs.
type fakeGroupView struct {
	errs  []error
	offs  map[int32]admin.CommittedOffset
	desc  admin.GroupDescription
	dErr  error
	asked int
}

func (v *fakeGroupView) CommittedOffsets(ctx context.Context, group, topic string) (map[int32]admin.CommittedOffset, error) {
	v.asked++
	if len(v.errs) > 0 {
		err := v.errs[0]
		if len(v.errs) > 1 {
			v.errs = v.errs[1:]
		}
		if err != nil {
			return nil, err
		}
	}
	return v.offs, nil
}

func (v *fakeGroupView) DescribeGroup(ctx context.Context, group, protocol, topic string) (admin.GroupDescription, error) {
	return v.desc, v.dErr
}

// TestGroupFinal: the read-back is one op on a process of its own; it
// asks again while the coordinator loads, ends ok with what it answered,
// or info when it never answers (within the final read's timeout), and
// is not recorded without a group.
func TestGroupFinal(t *testing.T) {
	loading := kerr.CoordinatorLoadInProgress
	for _, tc := range []struct {
		name    string
		group   string
		view    *fakeGroupView
		timeout time.Duration
		typ     histories.Type // "": no op
		err     string
		check   func(t *testing.T, v histories.GroupFinalValue)
	}{{
		name: "answers after loading", group: "g", timeout: 5 * time.Second, typ: histories.OK,
		view: &fakeGroupView{errs: []error{loading, kerr.NotCoordinator, nil},
			offs: map[int32]admin.CommittedOffset{0: {Offset: 7, LeaderEpoch: 3}, 1: {Offset: -1, LeaderEpoch: -1}, 2: {Err: kerr.UnstableOffsetCommit}},
			desc: admin.GroupDescription{Type: "consumer", State: "Empty", Protocol: "range", Generation: 9, Coordinator: 2,
				Members: []admin.GroupMember{{MemberID: "m", Epoch: 9, Assigned: []int32{0}}}}},
		check: func(t *testing.T, v histories.GroupFinalValue) {
			if o, ok := v.Offsets["0"]; !ok || o.Offset != 7 || o.LeaderEpoch != 3 || len(v.Offsets) != 1 {
				t.Errorf("offsets %+v: want only 0 at 7, epoch 3 (1 has none, 2 an error)", v.Offsets)
			}
			if v.Errors["2"] != "UNSTABLE_OFFSET_COMMIT" {
				t.Errorf("errors %v", v.Errors)
			}
			if v.Attempts != 3 || v.State != "Empty" || v.Type != "consumer" || v.Generation == nil || *v.Generation != 9 || len(v.Members) != 1 {
				t.Errorf("value %+v", v)
			}
		},
	}, {
		name: "never answers: info with its last error", group: "g", timeout: 1200 * time.Millisecond, typ: histories.Info, err: "COORDINATOR_LOAD_IN_PROGRESS",
		view: &fakeGroupView{errs: []error{loading}},
	}, {
		name: "an error asking again will not change: info", group: "g", timeout: 5 * time.Second, typ: histories.Info,
		err:  "GROUP_AUTHORIZATION_FAILED",
		view: &fakeGroupView{errs: []error{kerr.GroupAuthorizationFailed}},
	}, {
		name: "the description fails: ok, its error kept", group: "g", timeout: 5 * time.Second, typ: histories.OK,
		view: &fakeGroupView{offs: map[int32]admin.CommittedOffset{0: {Offset: 1, LeaderEpoch: -1}}, dErr: errors.New("describe: boom")},
		check: func(t *testing.T, v histories.GroupFinalValue) {
			if v.DescribeError == "" || v.Offsets["0"].Offset != 1 {
				t.Errorf("value %+v", v)
			}
		},
	}, {
		name: "no group: nothing recorded", view: &fakeGroupView{}, timeout: time.Second,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Duration: Duration(time.Second)}
			if tc.group != "" {
				cfg.Group = GroupConfig{ID: tc.group, Members: 1}
			}
			w, rec, buf := newTestWorkload(t, cfg, &fakeDriver{})
			w.cfg.FinalReadTimeout = Duration(tc.timeout)
			if err := w.GroupFinal(context.Background(), tc.view); err != nil {
				t.Fatal(err)
			}
			var got []histories.Event
			for _, e := range readBack(t, rec, buf) {
				if e.F == histories.FGroupFinal {
					got = append(got, e)
				}
			}
			if tc.typ == "" {
				if len(got) != 0 {
					t.Fatalf("recorded %v without a group", got)
				}
				return
			}
			if len(got) != 2 || got[0].Type != histories.Invoke || got[1].Type != tc.typ || got[1].Error != tc.err {
				t.Fatalf("events %+v: want invoke, then %s %q", got, tc.typ, tc.err)
			}
			var v histories.GroupFinalValue
			if err := got[1].Decode(&v); err != nil || v.Group != "g" {
				t.Fatalf("value %+v (%v)", v, err)
			}
			if tc.check != nil {
				tc.check(t, v)
			}
		})
	}
}
