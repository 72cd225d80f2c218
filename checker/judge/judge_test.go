package judge

import (
	"slices"
	"testing"

	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// history is two partitions, one final read holding records of both, and
// nemesis ops (times in nanoseconds): a fault at 1 s, its heal at 2 s,
// faults at 3..9 s.
func history() *model.History {
	h := &model.History{
		TPs: []*model.TP{model.NewTP("t", 0), model.NewTP("t", 1)},
		Recs: []model.Rec{
			{TP: 0, Off: 0, Val: 0}, {TP: 0, Off: 1, Val: 1}, {TP: 1, Off: 0, Val: 2},
		},
		Finals: []model.Read{{Start: 0, End: 3}},
		Sends: []model.Send{
			{TP: 1, Typ: model.OpOK, Off: 0}, {TP: 0, Typ: model.OpFail, Off: -1}, {TP: 0, Typ: model.OpOK, Off: 1},
		},
	}
	h.TPs[0].Final = 0
	h.Nem = append(h.Nem, model.NemOp{F: histories.FKill, Call: 1e9}, model.NemOp{F: histories.FStart, Call: 2e9})
	for s := int64(3); s <= 9; s++ {
		h.Nem = append(h.Nem, model.NemOp{F: histories.FKill, Call: s * 1e9})
	}
	return h
}

func TestFinalRecs(t *testing.T) {
	h := history()
	for _, tc := range []struct {
		name  string
		f, tp int32
		want  []int64
	}{
		{"partition 0", 0, 0, []int64{0, 1}},
		{"partition 1", 0, 1, []int64{0}},
		{"no final read", -1, 0, nil},
	} {
		var got []int64
		for _, r := range FinalRecsOf(h, tc.f, tc.tp) {
			got = append(got, r.Off)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: offsets %v, want %v", tc.name, got, tc.want)
		}
	}
	if n := len(FinalRecs(h, 1)); n != 0 {
		t.Errorf("partition 1 has no final read of its own, got %d records", n)
	}
}

func TestAcked(t *testing.T) {
	got := Acked(history())
	if !slices.Equal(got[0], []int32{2}) || !slices.Equal(got[1], []int32{0}) {
		t.Errorf("acked %v, want [[2] [0]]", got)
	}
}

func TestPlaces(t *testing.T) {
	p := NewPlaces(history())
	if got := p.Faults(); !slices.Equal(got, []int{0, 2, 3, 4, 5, 6, 7, 8}) {
		t.Fatalf("faults %v: the heal is not one", got)
	}
	for _, tc := range []struct {
		name string
		at   int64
		want float64 // AtS of the last fault before, -1 for none
	}{
		{"before any", 5e8, -1},
		{"at the first", 1e9, 1},
		{"past the heal", 2.5e9, 1},
		{"late", 1e12, 9},
	} {
		got := p.FaultBefore(tc.at)
		switch {
		case tc.want < 0 && got != nil:
			t.Errorf("%s: %v, want none", tc.name, got)
		case tc.want >= 0 && (got == nil || got.AtS != tc.want):
			t.Errorf("%s: %v, want the fault at %v s", tc.name, got, tc.want)
		}
	}
	between := p.FaultsBetween(0, 1e12)
	if len(between) != 5 || between[0].AtS != 5 || between[4].AtS != 9 {
		t.Errorf("between: %v, want the last 5 (5 s to 9 s)", between)
	}
	if w := p.Where(0, 3e9); w.LastFault == nil || w.LastFault.AtS != 3 || w.Leader != nil {
		t.Errorf("where: %+v, want no sample and the fault at 3 s", w)
	}
}

func TestSecs(t *testing.T) {
	for in, want := range map[int64]float64{0: 0, 1_234_567_890: 1.235, 1_499_999: 0.001, 499_999: 0} {
		if got := Secs(in); got != want {
			t.Errorf("Secs(%d) = %v, want %v", in, got, want)
		}
	}
}
