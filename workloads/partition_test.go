package workloads

import "testing"

// Golden vectors from Kafka's UtilsTest.testMurmur2.
func TestMurmur2KafkaVectors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int32
	}{
		{"21", -973932308},
		{"foobar", -790332482},
		{"a-little-bit-long-string", -985981536},
		{"a-little-bit-longer-string", -1486304829},
		{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971},
		{"abc", 479470107},
	} {
		if got := int32(murmur2([]byte(tc.in))); got != tc.want {
			t.Errorf("murmur2(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestPartitioner(t *testing.T) {
	rr := newPartitioner(Config{Partitioning: RoundRobin, Partitions: 3})
	for i := 0; i < 6; i++ {
		if p, k := rr.pick(); p != int32(i%3) || k != "" {
			t.Fatalf("round robin pick %d = %d %q", i, p, k)
		}
	}
	byKey := newPartitioner(Config{Partitioning: ByKey, Partitions: 5, Keys: 4})
	seen := map[string]int32{}
	for i := 0; i < 40; i++ {
		p, k := byKey.pick()
		if want := keyPartition([]byte(k), 5); p != want {
			t.Fatalf("key %s on partition %d, want %d", k, p, want)
		}
		if q, ok := seen[k]; ok && q != p {
			t.Fatalf("key %s moved from %d to %d", k, q, p)
		}
		seen[k] = p
	}
	if len(seen) != 4 {
		t.Errorf("%d keys used, want 4", len(seen))
	}
}
