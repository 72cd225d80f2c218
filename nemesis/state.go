package nemesis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kchaos/kchaos/cluster/admin"
)

// BrokerReader is implemented by *admin.Client: state reads answered by
// one chosen broker.
type BrokerReader interface {
	DescribeFrom(ctx context.Context, broker int32, topic string) ([]admin.PartitionState, error)
	LiveBrokersFrom(ctx context.Context, broker int32) ([]int32, error)
}

// hedgeAfter is how long a read waits for the preferred broker before it
// asks every other candidate too.
const hedgeAfter = time.Second

// State is the StateSource that targets, conditions and heals read. With
// an admin client that can address brokers, reads go to brokers the
// nemesis knows are running and not frozen, rather than to the client's
// rotation over every known broker: faults make that rotation hit a killed
// broker (a 2 s dial timeout) and then a paused one (a read timeout), and
// a read can miss its deadline poll after poll. A read asks one broker,
// the one that answered last (a broker's metadata cache only moves
// forward, so sticking to one avoids seeing the ISR flicker between
// brokers that lag each other), preferring brokers not cut off from the
// controller (their cache is stale); after hedgeAfter, or at its error,
// it asks the others too and takes the first answer.
func (e *Env) State() StateSource {
	if br, ok := e.Admin.(BrokerReader); ok {
		return &hedged{e: e, br: br}
	}
	return e.Admin
}

type hedged struct {
	e  *Env
	br BrokerReader
}

func (h *hedged) Describe(ctx context.Context, topic string) ([]admin.PartitionState, error) {
	return ask(ctx, h.e, func(ctx context.Context, b int32) ([]admin.PartitionState, error) {
		return h.br.DescribeFrom(ctx, b, topic)
	}, func(ctx context.Context) ([]admin.PartitionState, error) { return h.e.Admin.Describe(ctx, topic) })
}

func (h *hedged) LiveBrokers(ctx context.Context) ([]int32, error) {
	return ask(ctx, h.e, h.br.LiveBrokersFrom, h.e.Admin.LiveBrokers)
}

func (h *hedged) LastStableOffset(ctx context.Context, leader int32, topic string, partition int32) (int64, error) {
	return h.e.Admin.LastStableOffset(ctx, leader, topic, partition)
}

func (h *hedged) HighWatermark(ctx context.Context, leader int32, topic string, partition int32) (int64, error) {
	return h.e.Admin.HighWatermark(ctx, leader, topic, partition)
}

func (h *hedged) ActiveController(ctx context.Context) (int32, error) {
	id := int32(-1)
	err := h.e.AdminCall(ctx, func(ctx context.Context) (err error) {
		id, err = h.e.Admin.ActiveController(ctx)
		return err
	})
	return id, err
}

// Readers lists the brokers to read from, best first: the last one that
// answered, then the others not cut off from the controller, then those
// that are; all of them running, not paused and not cut from clients
// (which brokers a fault cuts, its kind says: Kind.AvoidReads). It is
// exported for the rooms' admin requests that name the broker they go
// through (nemesis/quorum's elections).
func (e *Env) Readers(ctx context.Context) []int32 {
	e.mu.Lock()
	last := e.lastReader
	e.mu.Unlock()
	clients, cut := e.avoidReads()
	var good, stale []int32
	for _, id := range e.BrokerIDs() {
		if clients[id] || !e.RunsUnpaused(ctx, id) {
			continue // a client cut drops kchaos's own requests too
		}
		if cut[id] {
			stale = append(stale, id)
		} else {
			good = append(good, id)
		}
	}
	out := append(good, stale...)
	if i := slices.Index(out, last); i > 0 && !cut[last] {
		out = append([]int32{last}, slices.Delete(out, i, i+1)...)
	}
	return out
}

// ask runs one read hedged over the readers; with no reader (every broker
// down) it falls back to the client's own routing.
func ask[T any](ctx context.Context, e *Env, one func(context.Context, int32) (T, error), anyBroker func(context.Context) (T, error)) (T, error) {
	var zero T
	cands := e.Readers(ctx)
	if len(cands) == 0 {
		return anyBroker(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		v   T
		err error
		b   int32
	}
	ch := make(chan result, len(cands))
	next, inFlight := 0, 0
	launchRest := func(all bool) {
		for ; next < len(cands) && (all || next == 0); next++ {
			b := cands[next]
			inFlight++
			go func() {
				v, err := one(ctx, b)
				ch <- result{v, err, b}
			}()
		}
	}
	launchRest(false)
	hedge := time.NewTimer(hedgeAfter)
	defer hedge.Stop()
	var errs []error
	for {
		select {
		case r := <-ch:
			inFlight--
			if r.err == nil {
				e.mu.Lock()
				e.lastReader = r.b
				e.mu.Unlock()
				return r.v, nil
			}
			errs = append(errs, fmt.Errorf("broker %d: %w", r.b, r.err))
			launchRest(true)
			if inFlight == 0 {
				return zero, errors.Join(errs...)
			}
		case <-hedge.C:
			launchRest(true)
		case <-ctx.Done():
			return zero, errors.Join(append(errs, ctx.Err())...)
		}
	}
}

// adminRetryFor bounds the retries of an admin request.
const adminRetryFor = 30 * time.Second

// AdminCall runs an admin request (a config change, an election, a quorum
// read), retrying for up to adminRetryFor unless Kafka answered with an
// error it calls final. kgo sends admin requests to the broker its last
// metadata named as controller (in KRaft, any live broker, which forwards
// them); a fault may since have killed or frozen that broker, and kgo
// keeps asking it until a metadata refresh. So between attempts a
// metadata read through the client (Admin.LiveBrokers) makes it pick a
// broker that is live now. It is exported for every kind that acts
// through the admin API, the rooms' (nemesis/quorum) as the seam's.
func (e *Env) AdminCall(ctx context.Context, op func(context.Context) error) error {
	deadline := time.Now().Add(adminRetryFor)
	for {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := op(actx)
		cancel()
		var ke *kerr.Error
		if err == nil || (errors.As(err, &ke) && !ke.Retriable) || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		e.Logger().Debug("nemesis: admin request failed; retrying", "err", err)
		if e.Admin != nil { // none while the cluster starts (a bootstrap schedule)
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, _ = e.Admin.LiveBrokers(rctx)
			cancel()
		}
		if sleep(ctx, PollInterval) != nil {
			return err
		}
	}
}

// avoidReads is every kind's AvoidReads, joined: the brokers to skip and
// those to read last.
func (e *Env) avoidReads() (skip, last map[int32]bool) {
	skip, last = map[int32]bool{}, map[int32]bool{}
	for _, k := range hooked {
		if k.AvoidReads == nil {
			continue
		}
		s, l := k.AvoidReads(e)
		maps.Copy(skip, s)
		maps.Copy(last, l)
	}
	return skip, last
}

// RunsUnpaused reports whether node id's container runs and is not
// frozen, that is, whether it can run a command: the state reads ask it
// of every broker, and it is exported for the rooms, whose faults act
// only on nodes that can (nemesis/network's rules skip the others).
func (e *Env) RunsUnpaused(ctx context.Context, id int32) bool {
	st, err := e.Cluster.State(ctx, id)
	return err == nil && st.Running && !st.Paused
}
