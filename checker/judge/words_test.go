package judge

import "testing"

// TestOffsetWords: one offset is named in the singular, a span or a list
// in the plural ("offsets 194-194" and "1 records" were what a group's
// redelivery of one record read).
func TestOffsetWords(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{OffsetSpan(194, 194), "offset 194"},
		{OffsetSpan(177, 194), "offsets 177-194"},
		{OffsetList(nil), "offset unknown"},
		{OffsetList([]int64{3}), "offset 3"},
		{OffsetList([]int64{3, 9}), "offsets 3, 9"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
