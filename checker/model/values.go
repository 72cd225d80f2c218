package model

// ValueIndex numbers the value strings of a history (History.ValIdx).
//
// Why not just a map: a history's values are nearly all new when first
// seen (a send's), so a map costs a missed lookup and an insert per value,
// each a cache miss in a table of a million strings: a fifth of the
// checker's taking of a 1M-op history, on the goroutine the whole stream
// waits for. Values are nearly always a short prefix and a counter
// ("v123", "p3-000123"), so such a value is kept in a dense slice per
// (prefix, digit count), indexed by the counter: an index instead of a
// hash. Everything else goes to the map.
//
// Which table holds a string depends on the string alone, once its
// prefix has been seen (see key), so one string always gets one number,
// and the numbers are the ones a map alone would give: the caller hands
// out the next one on each new string.
type ValueIndex struct {
	m     map[string]int32
	hint  int // the values expected: the map's size when first needed
	dense []denseValues
	last  int // the dense entry hit last
}

// denseValues is the values of one prefix and digit count: ids[n]-1 is
// the number of the value whose counter is n, -1 for none.
type denseValues struct {
	prefix string
	width  int
	ids    []int32
}

const (
	// maxDenseKeys bounds the (prefix, digit count) pairs kept densely;
	// pairs first seen after that go to the map for good.
	maxDenseKeys = 32
	// maxDenseCounter bounds a dense counter (4 MiB of slice per pair at
	// most, 128 MiB for a hostile history using every pair); larger
	// counters go to the map.
	maxDenseCounter = 1 << 20
	maxDenseWidth   = 7 // digits of maxDenseCounter
)

// NewValueIndex returns an index for about n values. The map is made,
// at that size, when a value first needs it (sized up front, it spares
// rehashing a million values; made up front, it would be tens of MB that
// a history of counters never uses).
func NewValueIndex(n int) ValueIndex { return ValueIndex{hint: n} }

// counter splits v into a prefix that does not end in a digit and a
// trailing run of 1 to maxDenseWidth digits below maxDenseCounter;
// ok is false for any other string.
func counter(v []byte) (prefix []byte, width, n int, ok bool) {
	j := len(v)
	for j > 0 && v[j-1] >= '0' && v[j-1] <= '9' {
		j--
	}
	width = len(v) - j
	if width == 0 || width > maxDenseWidth {
		return nil, 0, 0, false
	}
	for _, c := range v[j:] {
		n = n*10 + int(c-'0')
	}
	if n >= maxDenseCounter {
		return nil, 0, 0, false
	}
	return v[:j], width, n, true
}

// key finds the dense entry of prefix and width, adding it if add and
// there is room; -1 sends the value to the map. An entry, once added,
// stays, and none is added after the table is full: a string's table
// never changes.
func (x *ValueIndex) key(prefix []byte, width int, add bool) int {
	if x.last < len(x.dense) {
		if d := &x.dense[x.last]; d.width == width && d.prefix == string(prefix) {
			return x.last
		}
	}
	for i := range x.dense {
		if d := &x.dense[i]; d.width == width && d.prefix == string(prefix) {
			x.last = i
			return i
		}
	}
	if !add || len(x.dense) == maxDenseKeys {
		return -1
	}
	x.dense = append(x.dense, denseValues{prefix: string(prefix), width: width})
	x.last = len(x.dense) - 1
	return x.last
}

// Intern returns v's number; a string new to the index gets next, and
// s is then v as a string (for the caller's table of values).
func (x *ValueIndex) Intern(v []byte, next int32) (id int32, s string, added bool) {
	if prefix, width, n, ok := counter(v); ok {
		if k := x.key(prefix, width, true); k >= 0 {
			d := &x.dense[k]
			if n < len(d.ids) && d.ids[n] > 0 {
				return d.ids[n] - 1, "", false
			}
			for n >= len(d.ids) {
				d.ids = append(d.ids[:cap(d.ids)], 0)
			}
			d.ids[n] = next + 1
			return next, string(v), true
		}
	}
	if id, ok := x.m[string(v)]; ok {
		return id, "", false
	}
	if x.m == nil {
		x.m = make(map[string]int32, x.hint)
	}
	s = string(v)
	x.m[s] = next
	return next, s, true
}

// find returns the number of the value s, if the index holds it.
func (x *ValueIndex) find(s string) (int32, bool) {
	if prefix, width, n, ok := counter([]byte(s)); ok {
		if k := x.key(prefix, width, false); k >= 0 {
			if d := &x.dense[k]; n < len(d.ids) && d.ids[n] > 0 {
				return d.ids[n] - 1, true
			}
			return 0, false
		}
	}
	id, ok := x.m[s]
	return id, ok
}

// ValueID is the number of the value s, 0 if the history has no such
// value (as a map lookup gives: callers ask only of values they read).
func (h *History) ValueID(s string) int32 {
	id, _ := h.ValIdx.find(s)
	return id
}
