package retention

import (
	"fmt"
	"testing"
)

const sec = int64(1e9)

// records are n acked records at offsets 0..n-1, one invoked per second
// from t=1s.
func records(n int) []record {
	out := make([]record, n)
	for i := range out {
		out[i] = record{Offset: int64(i), Invoked: int64(i+1) * sec}
	}
	return out
}

func TestCheck(t *testing.T) {
	const per = 100 // bytes an offset can take at most
	cfg := func(ms, bytes int64) topicRetention {
		return topicRetention{RetentionMS: ms, RetentionBytes: bytes, Slack: sec / 2, MaxOffsetBytes: per}
	}
	for _, tc := range []struct {
		name string
		cfg  topicRetention
		p    partition
		want string // the jumps, rendered
	}{
		{"unlimited retention, start moves past acked records",
			cfg(unlimited, unlimited), partition{Records: records(10), Starts: []start{{At: 20 * sec, Offset: 4, End: 10, By: "observe"}}},
			"[0->4 at 20s by observe: 4 kept, first 0]"},
		{"no move: nothing",
			cfg(unlimited, unlimited), partition{Records: records(10), Starts: []start{{At: 20 * sec, Offset: 0, End: 10}}},
			"[]"},
		// retention by time: the record written at 1 s may go at 1 s + 5 s.
		{"time: every record passed is old enough (almost a jump)",
			cfg(5000, unlimited), partition{Records: records(10), Starts: []start{{At: 9 * sec, Offset: 4, End: 10}}},
			"[]"},
		{"time: the last record passed is 1 s too young",
			cfg(5000, unlimited), partition{Records: records(10), Starts: []start{{At: 8*sec + sec/4, Offset: 4, End: 10}}},
			"[0->4 at 8.25s by : 1 kept, first 3]"},
		{"time: within the clock slack is allowed",
			cfg(5000, unlimited), partition{Records: records(10), Starts: []start{{At: 8*sec + 3*sec/4, Offset: 4, End: 10}}},
			"[]"},
		// retention by bytes: 10 offsets, 100 bytes each at most; a record
		// at O may go only if (End-O-1)*100 >= retention.bytes.
		{"bytes: what remains could reach retention.bytes (almost a jump)",
			cfg(unlimited, 600), partition{Records: records(10), Starts: []start{{At: 2 * sec, Offset: 4, End: 10}}},
			"[]"},
		{"bytes: too little would remain after the last record passed",
			cfg(unlimited, 700), partition{Records: records(10), Starts: []start{{At: 2 * sec, Offset: 4, End: 10}}},
			"[0->4 at 2s by : 1 kept, first 3]"},
		{"bytes: unknown log end cannot rule size retention out",
			cfg(unlimited, 700), partition{Records: records(10), Starts: []start{{At: 2 * sec, Offset: 4, End: -1}}},
			"[]"},
		{"bytes or time: either allows (offset 3 by bytes, the rest by time too)",
			cfg(5000, 600), partition{Records: records(10), Starts: []start{{At: 8*sec + sec/4, Offset: 4, End: 10}}},
			"[]"},
		{"bytes and time both refuse: the KAFKA-20732 shape, the start jumps far",
			cfg(600000, 600), partition{Records: records(10), Starts: []start{{At: 12 * sec, Offset: 9, End: 10}}},
			"[0->9 at 12s by : 5 kept, first 4]"},
		// delete-records
		{"delete-records before the jump allows it",
			cfg(unlimited, unlimited), partition{Records: records(10), Starts: []start{{At: 5 * sec, Offset: 4, End: 10}},
				Deletes: []deletion{{At: 4 * sec, Before: 4}}},
			"[]"},
		{"delete-records after the jump does not",
			cfg(unlimited, unlimited), partition{Records: records(10), Starts: []start{{At: 5 * sec, Offset: 4, End: 10}},
				Deletes: []deletion{{At: 6 * sec, Before: 4}}},
			"[0->4 at 5s by : 4 kept, first 0]"},
		{"delete-records short of the jump",
			cfg(unlimited, unlimited), partition{Records: records(10), Starts: []start{{At: 5 * sec, Offset: 4, End: 10}},
				Deletes: []deletion{{At: 4 * sec, Before: 2}}},
			"[0->4 at 5s by : 2 kept, first 2]"},
		// several observations: each move is judged from the last start.
		{"a lagging lower answer does not reopen offsets already judged",
			cfg(unlimited, unlimited), partition{Records: records(10), Starts: []start{
				{At: 5 * sec, Offset: 2, End: 10}, {At: 6 * sec, Offset: 1, End: 10}, {At: 7 * sec, Offset: 3, End: 10}}},
			"[0->2 at 5s by : 2 kept, first 0 2->3 at 7s by : 1 kept, first 2]"},
		{"a jump past offsets no acked record holds is no anomaly",
			cfg(unlimited, unlimited), partition{Records: []record{{Offset: 5, Invoked: sec}}, Starts: []start{{At: 5 * sec, Offset: 5, End: 10}}},
			"[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, j := range check(tc.cfg, tc.p) {
				got = append(got, fmt.Sprintf("%d->%d at %gs by %s: %d kept, first %d", j.From, j.To, float64(j.At)/1e9, j.By, j.Kept, j.First))
				if j.Why == "" {
					t.Errorf("jump %+v says no why", j)
				}
			}
			if s := fmt.Sprint(got); s != tc.want && !(len(got) == 0 && tc.want == "[]") {
				t.Errorf("got %s, want %s", s, tc.want)
			}
		})
	}
}

func TestMaxOffsetBytes(t *testing.T) {
	if got := maxOffsetBytes(10); got != 61+40+64+10 {
		t.Errorf("MaxOffsetBytes(10) = %d", got)
	}
}
