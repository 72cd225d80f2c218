package harness

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/proxy"
)

// requestProxy is the run's request proxy (nemesis/proxy) when its
// schedule has a request fault: the workload's clients reach the brokers
// through it, and the request faults add their rules to it. The observer,
// the admin client, the final read and the share drain keep the cluster's
// own addresses, so that evidence is never faulted; a run without a
// request fault has no proxy at all, so its clients' path is the one it
// always was.
type requestProxy struct {
	px  *proxy.Proxy
	env atomic.Pointer[nemesis.Env] // where actions are recorded, once the env exists
}

// startRequestProxy starts the proxy in front of c's brokers, or returns
// nil when s has no request fault.
func startRequestProxy(ctx context.Context, s *scenario.Scenario, c cluster.Cluster, log *slog.Logger) (*requestProxy, error) {
	if !s.Nemesis.HasRequestFaults() {
		return nil, nil
	}
	rp := &requestProxy{}
	rp.px = proxy.New(proxy.Options{
		OnAction: func(a proxy.Action) {
			if e := rp.env.Load(); e != nil {
				e.RecordRequest(a)
			}
		},
		OnError: func(err error) { log.Debug("request proxy", "err", err) },
	})
	if err := rp.px.Start(ctx, c.Bootstrap()); err != nil {
		return nil, err
	}
	log.Info("request proxy on the clients' path", "bootstrap", rp.px.Bootstrap())
	return rp, nil
}

// clientBootstrap is where the workload's clients connect: the proxy's
// listeners when there is one.
func (rp *requestProxy) clientBootstrap(c cluster.Cluster) []string {
	if rp == nil {
		return c.Bootstrap()
	}
	return rp.px.Bootstrap()
}

// attach makes env the request faults' proxy owner and the recorder of
// the proxy's actions.
func (rp *requestProxy) attach(env *nemesis.Env) {
	if rp == nil {
		return
	}
	env.Requests = rp.px
	rp.env.Store(env)
}

func (rp *requestProxy) close() {
	if rp != nil {
		_ = rp.px.Close()
	}
}
