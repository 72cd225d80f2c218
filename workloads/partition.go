package workloads

import (
	"strconv"
	"sync/atomic"
)

// partitioner picks each send's partition before the send, so that the
// invoke names it. In key mode it computes what Kafka's default partitioner
// would (murmur2 of the key), for both drivers alike, and the driver pins
// the record there.
type partitioner struct {
	mode  string
	n     int32
	keys  int
	next  atomic.Uint64
	names []string // key names, "k0".."kN-1"
}

func newPartitioner(cfg Config) *partitioner {
	p := &partitioner{mode: cfg.Partitioning, n: int32(cfg.Partitions), keys: cfg.Keys}
	if p.mode == ByKey {
		p.names = make([]string, cfg.Keys)
		for i := range p.names {
			p.names[i] = "k" + strconv.Itoa(i)
		}
	}
	return p
}

// pick returns the next send's partition and key (empty in round-robin
// mode). It is safe for concurrent use.
func (p *partitioner) pick() (int32, string) {
	i := p.next.Add(1) - 1
	if p.mode != ByKey {
		return int32(i % uint64(p.n)), ""
	}
	key := p.names[i%uint64(p.keys)]
	return keyPartition([]byte(key), p.n), key
}

// keyPartition is Kafka's default partition for a keyed record:
// toPositive(murmur2(key)) % partitions (BuiltInPartitioner.partitionForKey).
func keyPartition(key []byte, partitions int32) int32 {
	return int32((murmur2(key) & 0x7fffffff) % uint32(partitions))
}

// murmur2 is Kafka's Utils.murmur2 (seed 0x9747b28c).
func murmur2(data []byte) uint32 {
	const (
		seed = uint32(0x9747b28c)
		m    = uint32(0x5bd1e995)
		r    = 24
	)
	length := len(data)
	h := seed ^ uint32(length)
	n := length / 4
	for i := 0; i < n; i++ {
		j := i * 4
		k := uint32(data[j]) | uint32(data[j+1])<<8 | uint32(data[j+2])<<16 | uint32(data[j+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	rest := data[n*4:]
	switch len(rest) {
	case 3:
		h ^= uint32(rest[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(rest[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(rest[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
