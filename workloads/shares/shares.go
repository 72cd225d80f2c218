// Package shares is the share-group workload (KIP-932, workload.shares),
// a workload kind of its own: N members of one share group consume the
// scenario's topic beside the producers, each record under a time-limited
// acquisition lock, acknowledged one by one, recorded in the vocabulary
// of histories/shares.go; after the final heal the members drain the
// group and its start offsets are recorded.
//
// Each member is a client process that subscribes, polls, processes and
// acks. A member's ops are serial (it flushes its acks before it polls
// again), so one process never has two ops open. Its client fetches only
// when it polls (MaxConcurrentFetches 0, no fetch buffering), so what a
// poll returns was acquired during it.
//
// The Workload runs it (a workloads.Kind, registered at init); its settings
// (workloads.ShareConfig, with what Kafka provides) and what a driver
// gives it (workloads.ShareDriver, ShareMember) are the seam's, since a
// driver package implements them and imports no kind.
package shares

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

// group is a workload's share group: its members' slots, what the brokers
// run with, what the members saw final. It is a workloads.Kind.
type group struct {
	cfg   workloads.Config
	env   workloads.KindEnv // lent by the Workload at Open and Drain
	slots []*slot
	lim   limits
	tally tally
}

var _ workloads.Kind = (*group)(nil)

// The seam makes the share group of a workload that asks for one
// (workloads.New) through the registry: this package is linked by
// workloads/kinds.
func init() {
	workloads.RegisterKind(workloads.KindShares, func(cfg workloads.Config, _ workloads.Driver) (workloads.Kind, error) {
		return newGroup(cfg), nil
	})
}

// newGroup is the share group of cfg (its Defaults applied), with a slot per
// member; it connects to nothing yet.
func newGroup(cfg workloads.Config) *group {
	g := &group{cfg: cfg, slots: make([]*slot, cfg.Shares.Members)}
	for i := range g.slots {
		g.slots[i] = &slot{i: i, name: workloads.ShareMemberName(i), ctl: make(chan workloads.MemberFault),
			rng: rand.New(rand.NewPCG(cfg.Shares.Seed, uint64(i)))}
	}
	return g
}

// Open reads the lock duration and delivery limit the brokers run with
// and sets the group to start at earliest (drain.go), before any member
// joins.
func (g *group) Open(ctx context.Context, env workloads.KindEnv) error {
	g.env = env
	return g.setup(ctx)
}

// Run runs every member until stop; then they leave (their client
// closes and releases what it holds). A recorder error ends the run.
func (g *group) Run(stop context.Context) error { return g.loops(stop, nil) }

// Members is the handle on the members for the member faults, which they
// take as a consumer group's members do.
func (g *group) Members() workloads.GroupControl {
	names := make([]string, len(g.slots))
	chs := make([]chan workloads.MemberFault, len(g.slots))
	for i, s := range g.slots {
		names[i], chs[i] = s.name, s.ctl
	}
	return workloads.MemberControl(names, chs)
}

// slot is one member: its name and the faults sent to its loop.
type slot struct {
	i    int
	name string
	ctl  chan workloads.MemberFault
	rng  *rand.Rand

	// A kill or stall waits for the member's next poll that delivers
	// records, so that it strikes while the member holds their locks
	// (killAt: when the kill came; past killWait it strikes anyway).
	kill   *workloads.MemberFault
	killAt time.Time
	stall  time.Duration
}

// killWait bounds how long a kill waits for a poll that delivers records.
const killWait = 3 * time.Second

// member is one client of a slot (a new one after a kill): its
// process and its driver's client, and the share-poll op it keeps open
// across empty polls when its client may hand out records acquired
// before a poll (workloads.ShareMember.AcquiresInPoll).
type member struct {
	proc int
	cl   workloads.ShareMember
	poll *histories.SharePollValue // the open share-poll's invoke, or nil
}

// tally is what every member saw confirmed: records in a final
// state (accept or reject confirmed ok), for the drain. It is a bitset per
// partition, 64 offsets to a word: the members add every record they
// finish at the group's full rate, and a map entry per record (millions
// in a long run) cost them map growth and garbage collection in their
// synchronous loops (BenchmarkShareAccept).
type tally struct {
	mu    sync.Mutex
	final map[int32]map[int64]uint64 // partition -> offset/64 -> bits
}

func (t *tally) add(p int32, off int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.final == nil {
		t.final = map[int32]map[int64]uint64{}
	}
	if t.final[p] == nil {
		t.final[p] = map[int64]uint64{}
	}
	t.final[p][off>>6] |= 1 << (off & 63)
}

// has reports whether partition p's offset off is final (under mu).
func (t *tally) has(p int32, off int64) bool {
	return t.final[p][off>>6]&(1<<(off&63)) != 0
}

// missing counts the offsets below ends not yet final: from the log start
// (starts) or, past it, the group's share-partition start offset (spso,
// nil if unknown), below which Kafka holds every record final.
func (t *tally) missing(starts, spso, ends map[int32]int64) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var n int64
	for p, end := range ends {
		for off := max(starts[p], spso[p]); off < end; off++ {
			if !t.has(p, off) {
				n++
			}
		}
	}
	return n
}

// limits is what the brokers run with: the lock duration and the
// delivery count limit (read once, recorded in each share-subscribe).
type limits struct {
	lockMS int64
	limit  int32
}
