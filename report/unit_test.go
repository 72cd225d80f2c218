package report

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/histories"
)

func TestBands(t *testing.T) {
	op := func(f string, start, end float64, typ histories.Type, fault string, nodes ...int32) nemOp {
		return nemOp{F: f, Start: int64(start * 1e9), End: int64(end * 1e9), Type: typ,
			Value: histories.NemesisValue{Fault: fault, Nodes: nodes}}
	}
	type want struct {
		kind       string
		start, end float64
		open       bool
	}
	tests := []struct {
		name string
		ops  []nemOp
		want []want
	}{
		{"kill undone by start of the same node", []nemOp{
			op("kill", 1, 1.1, histories.OK, "", 0), op("start", 5, 6, histories.OK, "", 0)},
			[]want{{"kill", 1, 6, false}}},
		{"start of another node leaves the kill open", []nemOp{
			op("kill", 1, 1.1, histories.OK, "", 0), op("start", 5, 6, histories.OK, "", 1)},
			[]want{{"kill", 1, 10, true}}},
		{"heal of partitions does not start a killed broker", []nemOp{
			op("partition", 1, 1.1, histories.OK, "", 1, 2), op("kill", 2, 2.1, histories.OK, "", 0),
			op("heal", 3, 3.2, histories.OK, "partition")},
			[]want{{"partition", 1, 3.2, false}, {"kill", 2, 10, true}}},
		{"heal all undoes everything", []nemOp{
			op("pause", 1, 1.1, histories.OK, "", 2), op("kill", 2, 2.1, histories.OK, "", 0),
			op("heal", 3, 4, histories.OK, "all")},
			[]want{{"pause", 1, 4, false}, {"kill", 2, 4, false}}},
		{"resume undoes pause", []nemOp{
			op("pause", 1, 1.1, histories.OK, "", 2), op("resume", 3, 3.1, histories.OK, "", 2)},
			[]want{{"pause", 1, 3.1, false}}},
		{"a failed fault did not happen", []nemOp{
			op("kill", 1, 1.1, histories.Fail, "", 0)}, nil},
		{"one-shot faults span their own op", []nemOp{
			op("set-config", 1, 1.2, histories.OK, ""), op("elect-unclean", 2, 2.5, histories.OK, "")},
			[]want{{"set-config", 1, 1.2, false}, {"elect-unclean", 2, 2.5, false}}},
		{"lose-unflushed that started the broker ends with its op", []nemOp{
			{F: "lose-unflushed", Start: 1e9, End: 3e9, Type: histories.OK,
				Value: histories.NemesisValue{Nodes: []int32{0}, Details: map[string]any{"start": true}}}},
			[]want{{"lose-unflushed", 1, 3, false}}},
		{"lose-unflushed without start waits for start", []nemOp{
			op("lose-unflushed", 1, 2, histories.OK, "", 0), op("start", 4, 5, histories.OK, "", 0)},
			[]want{{"lose-unflushed", 1, 5, false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := bands(tc.ops, 10e9)
			if len(got) != len(tc.want) {
				t.Fatalf("%d bands %+v, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Kind != w.kind || g.Start != int64(w.start*1e9) || g.End != int64(w.end*1e9) || g.Open != w.open {
					t.Errorf("band %d = %s %d..%d open=%v, want %+v", i, g.Kind, g.Start, g.End, g.Open, w)
				}
			}
		})
	}
}

func TestVerdictJSON(t *testing.T) {
	tests := []struct {
		in   string
		want RunVerdict
		err  bool
	}{
		{"true", Valid, false}, {"false", Invalid, false}, {`"unknown"`, Unknown, false},
		{`"valid"`, Valid, false}, {`"unchecked"`, Unchecked, false}, {"1", "", true}, {`"maybe"`, "", true},
	}
	for _, tc := range tests {
		var v RunVerdict
		err := json.Unmarshal([]byte(tc.in), &v)
		if (err != nil) != tc.err || v != tc.want {
			t.Errorf("%s: got %q, %v; want %q, error %v", tc.in, v, err, tc.want, tc.err)
		}
	}
}

func TestRanges(t *testing.T) {
	loc := func(p int32, o int64) anomalyLoc { return anomalyLoc{Partition: p, Offset: o} }
	tests := []struct {
		name string
		locs []anomalyLoc
		want []rangeRow
	}{
		{"none", nil, nil},
		{"one", []anomalyLoc{loc(0, 7)}, []rangeRow{{"t-0", "7", 1}}},
		{"contiguous and gaps, unordered, duplicates", []anomalyLoc{loc(0, 63), loc(0, 61), loc(0, 62), loc(0, 62), loc(0, 99)},
			[]rangeRow{{"t-0", "61-63, 99", 4}}},
		{"per partition", []anomalyLoc{loc(1, 3), loc(0, 4), loc(1, 4)},
			[]rangeRow{{"t-0", "4", 1}, {"t-1", "3-4", 2}}},
	}
	for _, tc := range tests {
		got := ranges(tc.locs, "t")
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Merging bins must keep every count: the page's totals are the history's.
func TestBinsMergeKeepsTotals(t *testing.T) {
	tl := &timeline{Width: 1e6, partIdx: map[tp]int{}}
	tl.part(tp{"t", 0})
	const n = 100000
	for i := int64(0); i < n; i++ {
		b := tl.binAt(i * 7e6) // 700 s in all: many merges
		b.OK++
		for len(b.Parts) < 1 {
			b.Parts = append(b.Parts, offBin{})
		}
		b.Parts[0].Acked.add(i)
	}
	if len(tl.Bins) > maxBins {
		t.Fatalf("%d bins, want at most %d", len(tl.Bins), maxBins)
	}
	ok, acked, lo, hi := 0, 0, int64(n), int64(-1)
	for i := range tl.Bins {
		ok += tl.Bins[i].OK
		s := tl.Bins[i].Parts[0].Acked
		acked += s.N
		if s.N > 0 {
			lo, hi = min(lo, s.Min), max(hi, s.Max)
		}
	}
	if ok != n || acked != n || lo != 0 || hi != n-1 {
		t.Errorf("after merging: ok %d acked %d offsets %d..%d, want %d %d 0..%d", ok, acked, lo, hi, n, n, n-1)
	}
}

// The report reads results.json as checker.WriteResults writes it.
func TestFromCheckerResults(t *testing.T) {
	tests := []struct {
		name      string
		json      string
		verdict   RunVerdict
		counts    map[string]int
		intervals string
	}{
		{"counts from the lists when counts is absent",
			`{"valid":false,"anomalies":{"lost-write":[{"topic":"t","partition":1,"offset":5,"value":"a"}],"nonlinearizable":[{"topic":"t","partition":1}]},"stats":{}}`,
			Invalid, map[string]int{"lost-write": 1, "nonlinearizable": 1}, "[]"},
		{"the checker's counts win",
			`{"valid":"unknown","counts":{"unseen":7},"anomalies":{"unseen":[{"topic":"t"}]},"stats":{}}`,
			Unknown, map[string]int{"unseen": 7}, "[]"},
		{"unavailability in ns with its cause",
			`{"valid":true,"stats":{"partitions":{"t-0":{"unavailable":[{"from_s":1.5,"to_s":2.25,"cause":"sends-failing","open":true,"errors":{"X":2}}]}}}}`,
			Valid, map[string]int{}, "[t-0:1500000000-2250000000 sends failing (X 2), until the end of the history]"},
	}
	for _, tc := range tests {
		var cr checker.Result
		if err := json.Unmarshal([]byte(tc.json), &cr); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r := fromChecker(&cr)
		var ivs []string
		for k, list := range r.Unavailable {
			for _, iv := range list {
				ivs = append(ivs, fmt.Sprintf("%s:%d-%d %s", k, iv.Start, iv.End, iv.Cause))
			}
		}
		if r.Valid != tc.verdict || fmt.Sprint(r.Counts) != fmt.Sprint(tc.counts) || fmt.Sprint(ivs) != tc.intervals {
			t.Errorf("%s: verdict %s counts %v intervals %v", tc.name, r.Valid, r.Counts, ivs)
		}
	}
}
