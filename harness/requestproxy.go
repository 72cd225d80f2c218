package harness

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/proxy"
	"github.com/kchaos/kchaos/nemesis/requests"
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
	// routed: the brokers' inter-broker traffic passes it too
	// (routedRequestProxy); it is closed after the cluster's teardown.
	routed bool
}

// newRequestProxy makes the run's proxy, its actions recorded in the
// env once attach gives it one.
func newRequestProxy(log *slog.Logger) *requestProxy {
	rp := &requestProxy{}
	rp.px = proxy.New(proxy.Options{
		OnAction: func(a proxy.Action) {
			if e := rp.env.Load(); e != nil {
				requests.Record(e, a)
			}
		},
		OnError: func(err error) { log.Debug("request proxy", "err", err) },
	})
	return rp
}

// routedRequestProxy is the proxy of a scenario whose request faults act
// on the brokers' own requests (requests.ReplicaRole), made before its
// cluster starts so that the brokers advertise its routes
// (cluster.Config.InterBrokerVia): nil for any other scenario. It lives
// as long as the cluster does, the caller closing it after the teardown.
func routedRequestProxy(s *scenario.Scenario, cfg *cluster.Config, log *slog.Logger) *requestProxy {
	if !s.Nemesis.RoutesInterBroker() {
		return nil
	}
	rp := newRequestProxy(log)
	rp.routed = true
	cfg.InterBrokerVia = func(host string, upstream map[int32]string) (map[int32]string, error) {
		out := map[int32]string{}
		for id, addr := range upstream {
			a, err := rp.px.Route(id, host, addr)
			if err != nil {
				return nil, err
			}
			out[id] = a
		}
		log.Info("request proxy on the brokers' inter-broker path", "routes", out)
		return out, nil
	}
	return rp
}

// startRequestProxy opens the proxy's client side in front of c's
// brokers: routed's (the routed proxy made before the cluster), or a new
// one when s has a request fault, or none.
func startRequestProxy(ctx context.Context, s *scenario.Scenario, c cluster.Cluster, routed *requestProxy, log *slog.Logger) (*requestProxy, error) {
	rp := routed
	if rp == nil {
		if !s.Nemesis.HasRequestFaults() {
			return nil, nil
		}
		rp = newRequestProxy(log)
	}
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

// closeUnlessRouted closes a proxy on the clients' path only: a routed
// one carries the brokers' replication until the cluster is gone.
func (rp *requestProxy) closeUnlessRouted() {
	if rp != nil && !rp.routed {
		rp.close()
	}
}

func (rp *requestProxy) close() {
	if rp != nil {
		_ = rp.px.Close()
	}
}
