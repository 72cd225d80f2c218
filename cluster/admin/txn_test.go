package admin

import "testing"

// The expected values are Java's String.hashCode and Utils.abs(h) % 50,
// computed with java on this machine, so a change to the hash shows here.
func TestTxnStatePartition(t *testing.T) {
	for _, tc := range []struct {
		id   string
		hash int32
		want int32
	}{
		{"", 0, 0},
		{"a", 97, 47},
		{"kchaos", -1137024523, 23},
		{"kchaos-kchaos-txn-0", -358705011, 11},
		{"polygenelubricants", -2147483648, 0}, // Integer.MIN_VALUE: Utils.abs gives 0
		{"żółw-ü", -1771700197, 47},            // UTF-16 code units, not bytes
	} {
		if got := javaStringHash(tc.id); got != tc.hash {
			t.Errorf("hash(%q) = %d, want %d", tc.id, got, tc.hash)
		}
		if got := TxnStatePartition(tc.id, 50); got != tc.want {
			t.Errorf("partition(%q, 50) = %d, want %d", tc.id, got, tc.want)
		}
	}
	if TxnStatePartition("x", 0) != -1 {
		t.Error("no partitions must give -1")
	}
}
