package nemesis

import (
	"context"
	"errors"
	"fmt"

	"github.com/kchaos/kchaos/cluster"
)

// This file is a whole lasting fault kind, written as a new kind is: its
// own capability, parameters that validate themselves alone and against
// the scenario, its Fault, its heal, its draw, its proof and its history
// facts. Registering it takes one line (register(dropPageCacheKind));
// nothing else in the package names it. TestFixtureKind runs it.

// capPageCache: the backend can keep a node's page cache from holding the
// log (PageCacheDropper), a capability no built-in backend declares.
var capPageCache = cluster.RegisterCapability("page-cache")

// PageCacheDropper is the interface a backend with capPageCache offers.
type PageCacheDropper interface {
	// HoldPageCache stops (on) or lets again (off) node id's page cache
	// hold the log: every read goes to the disk.
	HoldPageCache(ctx context.Context, id int32, on bool) error
}

const fDropPageCache = "drop-page-cache-test"

var dropPageCacheKind = Kind{Name: fDropPageCache, Needs: cluster.NewCaps(capPageCache),
	New:  func() Params { return &dropPageCacheParams{} },
	Heal: dropPageCacheHeal, Color: "#336699", LosesAcked: No, MovesLeaders: No,
	// Drawn after every built-in kind: the mix's order stays as it was.
	Draw:  &Draw{Rank: 100},
	Proof: "the backend's answer is its proof",
}

// dropPageCacheHeal lets every broker's page cache hold the log again;
// after every built-in heal in a heal all.
var dropPageCacheHeal = &HealKind{Name: fDropPageCache, Rank: 100,
	Heal: func(ctx context.Context, e *Env, d map[string]any) ([]int32, error) {
		pc, ok := e.Cluster.(PageCacheDropper)
		if !ok {
			return nil, nil
		}
		var errs []error
		ids := e.BrokerIDs()
		for _, id := range ids {
			errs = append(errs, pc.HoldPageCache(ctx, id, false))
		}
		d["page_cache_back"] = ids
		return ids, errors.Join(errs...)
	}}

// dropPageCacheParams: the nodes it acts on, and how many brokers the
// scenario must have (a rule that needs the scenario).
type dropPageCacheParams struct {
	MinBrokers int `yaml:"min_brokers,omitempty"`
}

func (dp *dropPageCacheParams) Validate(p string, st *Step, add AddFunc) {
	ValidateNodeTarget(p, st, add)
	if dp.MinBrokers < 0 {
		add(p+".min_brokers", "must not be negative")
	}
}

func (dp *dropPageCacheParams) CheckAgainst(p string, _ *Step, v *ScenarioView, add AddFunc) {
	if v.Brokers < dp.MinBrokers {
		add(p+".min_brokers", "%d: the cluster has %d brokers", dp.MinBrokers, v.Brokers)
	}
}

func (*dropPageCacheParams) Build(st Step) Fault { return &dropPageCache{target: st.Target} }

type dropPageCache struct{ target *Target }

func (*dropPageCache) Name() string { return fDropPageCache }

func (f *dropPageCache) Inject(ctx context.Context, e *Env) ([]int32, map[string]any, error) {
	pc, ok := e.Cluster.(PageCacheDropper)
	if !ok {
		return nil, nil, fmt.Errorf("backend cannot hold the page cache")
	}
	ids, err := e.Resolve(ctx, f.target)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range ids {
		if err := pc.HoldPageCache(ctx, id, true); err != nil {
			return ids, nil, err
		}
	}
	return ids, nil, nil
}

// Heal: what the heal kind does, for the nodes of this injection only.
func (f *dropPageCache) Heal(ctx context.Context, e *Env) error {
	_, err := dropPageCacheHeal.Heal(ctx, e, map[string]any{})
	return err
}
