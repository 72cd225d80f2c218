package harness

import (
	"context"
	"fmt"
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
// through it, and the request faults add their rules to it. It listens
// where every client of the run reaches it (proxyHost): on Docker the run
// network's gateway, which the Go clients on the host and the Java
// driver's JVMs in their containers beside the brokers both reach. The observer,
// the admin client, the final read and the share drain keep the cluster's
// own addresses, so that evidence is never faulted; a run without a
// request fault has no proxy at all, so its clients' path is the one it
// always was.
type requestProxy struct {
	px  *proxy.Proxy                // nil until open
	env atomic.Pointer[nemesis.Env] // where actions are recorded, once the env exists
	// routed: the brokers' inter-broker traffic passes it too
	// (routedRequestProxy); it is closed after the cluster's teardown.
	routed bool
}

// open makes the run's proxy, listening on host ("": loopback), its
// actions recorded in the env once attach gives it one.
func (rp *requestProxy) open(log *slog.Logger, host string) {
	rp.px = proxy.New(proxy.Options{
		ListenHost: host,
		OnAction: func(a proxy.Action) {
			if e := rp.env.Load(); e != nil {
				requests.Record(e, a)
			}
		},
		OnError: func(err error) { log.Debug("request proxy", "err", err) },
	})
}

// proxyHost is where the run's request proxy listens: the kchaos host's
// address as the nodes and the client containers see it, when the
// backend knows it (cluster.ClientSide: Docker's run network gateway);
// else "" (loopback: the clients all run on the kchaos host).
func proxyHost(ctx context.Context, c cluster.Cluster) (string, error) {
	cs, ok := c.(cluster.ClientSide)
	if !ok {
		return "", nil
	}
	a, err := cs.HostAddr(ctx)
	if err != nil {
		return "", fmt.Errorf("request proxy: where to listen: %w", err)
	}
	return a.String(), nil
}

// routedRequestProxy is the proxy of a scenario whose request faults act
// on the brokers' own requests (requests.replicaRole), made before its
// cluster starts so that the brokers advertise its routes
// (cluster.Config.InterBrokerVia): nil for any other scenario. It lives
// as long as the cluster does, the caller closing it after the teardown.
func routedRequestProxy(s *scenario.Scenario, cfg *cluster.Config, log *slog.Logger) *requestProxy {
	if !s.Nemesis.RoutesInterBroker() {
		return nil
	}
	rp := &requestProxy{routed: true}
	cfg.InterBrokerVia = func(host string, upstream map[int32]string) (map[int32]string, error) {
		// The first use, once the network (and so host, its gateway)
		// exists: the clients' listeners open on host too.
		if rp.px == nil {
			rp.open(log, host)
		}
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
	if rp == nil && !s.Nemesis.HasRequestFaults() {
		return nil, nil
	}
	if rp == nil {
		rp = &requestProxy{}
	}
	if rp.px == nil {
		host, err := proxyHost(ctx, c)
		if err != nil {
			return nil, err
		}
		rp.open(log, host)
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
	if rp != nil && rp.px != nil {
		_ = rp.px.Close()
	}
}
