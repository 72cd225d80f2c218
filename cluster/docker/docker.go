// Package docker is the Docker backend of package cluster: each node of a
// run is a container (testcontainers-go) on a private network with an
// explicit subnet, with its log dirs bind-mounted from the host so that
// they survive kill -9 and restart (and the disk faults reach them there,
// disk.go), and with NET_ADMIN so that faults can run iptables inside it. Every container and network carries the label
// org.kchaos.run=<run id>; Teardown and Clean remove them by that label.
// The Ryuk reaper is off (its image cannot be pulled here), so cleaning
// up is kchaos's own job.
package docker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tcnetwork "github.com/testcontainers/testcontainers-go/network"

	"github.com/kchaos/kchaos/cluster"
)

// Cluster is a running Kafka cluster of one run, in containers.
type Cluster struct {
	cfg         cluster.Config
	version     cluster.Version
	network     *testcontainers.DockerNetwork
	docker      *client.Client
	nodes       map[int32]cluster.Node
	containers  map[int32]*testcontainers.DockerContainer
	dataDirs    map[int32]string
	brokers     []int32
	controllers []int32
	// mu guards containers and versions, which Upgrade replaces.
	mu       sync.RWMutex
	versions map[int32]string // each node's Kafka release (Upgrade changes it)
	prevLogs map[int32][]byte // the logs of containers Upgrade replaced
	kraft    cluster.KRaftLayout
	subnet   netip.Prefix // the run network's (createNetwork)
	clients  clientSet    // the client containers (clientrun.go)
	torn     sync.Once
	tearErr  error
}

func init() {
	// The Ryuk reaper image cannot be pulled here; kchaos cleans up its own
	// containers by label (Teardown, Clean).
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
}

var _ cluster.Cluster = (*Cluster)(nil)

// Start creates the network and containers, and waits until every broker is
// registered and unfenced (checked through the admin API). On error it
// tears down whatever it created.
func Start(ctx context.Context, cfg cluster.Config) (c *Cluster, err error) {
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.RunID == "" {
		cfg.RunID = cluster.NewRunID()
	}
	v, _ := cluster.ParseVersion(cfg.KafkaVersion)
	docker, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("docker: %w (is the engine running? scripts/docker-up.sh starts one)", err)
	}
	if _, err := docker.ImageInspect(ctx, cfg.Image); err != nil {
		return nil, fmt.Errorf("image %s is not built: run `make image KAFKA_VERSION=%s`", cfg.Image, cfg.KafkaVersion)
	}
	c = &Cluster{cfg: cfg, version: v, docker: docker.Client,
		nodes: map[int32]cluster.Node{}, containers: map[int32]*testcontainers.DockerContainer{},
		dataDirs: map[int32]string{}, versions: map[int32]string{}, prevLogs: map[int32][]byte{}}
	defer func() {
		if err != nil {
			tctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = c.Teardown(tctx)
		}
	}()
	// The run's data folder, marked as kchaos's before any node's folder
	// is made in it: kchaos clean removes only marked folders.
	if _, err := makeDataDir(cfg.DataRoot, cfg.RunID); err != nil {
		return c, err
	}
	subnet, err := c.createNetwork(ctx)
	if err != nil {
		return c, err
	}
	c.layout(subnet)
	if via := c.cfg.InterBrokerVia; via != nil {
		var brokers, controllers []*cluster.Node
		for _, id := range c.brokers {
			n := c.nodes[id]
			brokers = append(brokers, &n)
		}
		if !c.cfg.Quorum.IsDynamic() { // a dynamic quorum's brokers learn the voters' endpoints from it
			for _, id := range c.controllers {
				n := c.nodes[id]
				controllers = append(controllers, &n)
			}
		}
		if err := cluster.RouteInterBroker(via, gateway(subnet).String(), brokers, controllers); err != nil {
			return c, err
		}
		for _, n := range append(brokers, controllers...) {
			c.nodes[n.ID] = *n
		}
	}
	if err := c.startContainers(ctx); err != nil {
		return c, err
	}
	if cfg.DuringStart != nil {
		// The nodes' processes are launched (formatting, then Kafka):
		// the schedule runs now, before anything is ready, and ends with
		// its heals; then the start waits for readiness as always.
		cfg.DuringStart(ctx, c)
	}
	if err := cluster.WaitStarted(ctx, c, 150*time.Second); err != nil {
		return c, err
	}
	return c, nil
}

// createNetwork makes the run's network with an explicit subnet: kchaos
// sends traffic only to networks it created itself.
func (c *Cluster) createNetwork(ctx context.Context) (netip.Prefix, error) {
	var candidates []netip.Prefix
	if c.cfg.Subnet != "" {
		p, err := netip.ParsePrefix(c.cfg.Subnet)
		if err != nil || !p.Addr().Is4() || p.Bits() > 26 {
			return p, fmt.Errorf("subnet %q: want an IPv4 prefix of /26 or wider", c.cfg.Subnet)
		}
		candidates = []netip.Prefix{p.Masked()}
	} else {
		h := fnv.New32a()
		h.Write([]byte(c.cfg.RunID))
		start := h.Sum32() % 256
		for i := uint32(0); i < 16; i++ {
			third := byte((start + i*17) % 256)
			candidates = append(candidates, netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 231, third, 0}), 24))
		}
	}
	var lastErr error
	for _, p := range candidates {
		nw, err := tcnetwork.New(ctx,
			tcnetwork.WithLabels(map[string]string{Label: c.cfg.RunID}),
			tcnetwork.WithIPAM(&network.IPAM{Driver: "default",
				Config: []network.IPAMConfig{{Subnet: p, Gateway: gateway(p)}}}),
		)
		if err == nil {
			c.network, c.subnet = nw, p
			return p, nil
		}
		lastErr = err
		if !strings.Contains(err.Error(), "overlap") {
			break
		}
	}
	return netip.Prefix{}, fmt.Errorf("create network: %w", lastErr)
}

// gateway is the run network's gateway, the kchaos host's address on it:
// named at creation (Docker's own choice is the same first address), so
// that it is known before any node starts (an inter-broker route listens
// on it).
func gateway(subnet netip.Prefix) netip.Addr { return hostAddr(subnet, 1) }

// hostAddr is host number n of subnet (the gateway 1, the nodes 10+, the
// client containers from the top down): one place for the run network's
// address arithmetic.
func hostAddr(subnet netip.Prefix, n int) netip.Addr {
	b := subnet.Masked().Addr().As4()
	binary.BigEndian.PutUint32(b[:], binary.BigEndian.Uint32(b[:])+uint32(n))
	return netip.AddrFrom4(b)
}

// layout names the nodes and gives each a fixed address: controllers .10+
// (the initial voters, then a dynamic quorum's spare controllers), brokers
// .20+.
func (c *Cluster) layout(subnet netip.Prefix) {
	addr := func(n int) string { return hostAddr(subnet, n).String() }
	rackOf := c.cfg.Racks.RackOf()
	for i := 0; i < c.cfg.Controllers+c.cfg.Quorum.Spares(); i++ {
		id := int32(cluster.ControllerIDBase + i)
		c.nodes[id] = cluster.Node{ID: id, Role: cluster.RoleController, IP: addr(10 + i),
			Name: fmt.Sprintf("kchaos-%s-controller-%d", c.cfg.RunID, id)}
		c.controllers = append(c.controllers, id)
	}
	for i := 0; i < c.cfg.Brokers; i++ {
		id := int32(i)
		c.nodes[id] = cluster.Node{ID: id, Role: cluster.RoleBroker, IP: addr(20 + i), Rack: rackOf[id],
			Name: fmt.Sprintf("kchaos-%s-broker-%d", c.cfg.RunID, id)}
		c.brokers = append(c.brokers, id)
	}
}

func (c *Cluster) startContainers(ctx context.Context) error {
	var ctrls []cluster.Node
	for _, id := range c.controllers {
		ctrls = append(ctrls, c.nodes[id])
	}
	c.kraft = cluster.NewKRaftLayout(c.cfg, ctrls)
	ids := append(append([]int32{}, c.controllers...), c.brokers...)
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(ids))
	for i, id := range ids {
		wg.Add(1)
		go func(i int, n cluster.Node) {
			defer wg.Done()
			ctr, dir, err := c.createNode(ctx, n, c.cfg.Image)
			mu.Lock()
			if ctr != nil {
				c.containers[n.ID] = ctr
			}
			c.versions[n.ID] = c.cfg.KafkaVersion
			c.dataDirs[n.ID] = dir
			mu.Unlock()
			errs[i] = err
		}(i, c.nodes[id])
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (c *Cluster) createNode(ctx context.Context, n cluster.Node, image string) (*testcontainers.DockerContainer, string, error) {
	dir := filepath.Join(c.cfg.DataRoot, c.cfg.RunID, fmt.Sprintf("%s-%d", n.Role, n.ID))
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, dir, err
	}
	var props string
	voters := c.kraft.Addrs(n)
	heap := c.cfg.BrokerHeapMB
	if n.Role == cluster.RoleBroker {
		// Tiered storage's settings come first: a scenario's broker_config
		// may tune them (task interval, thread pools).
		var tiered map[string]string
		if t := c.cfg.Tiered; t != nil {
			tiered = t.BrokerConfig(c.cfg.Brokers)
		}
		props = cluster.RenderLogDirs(n, voters, c.cfg.Brokers, c.cfg.LogDirs, tiered, c.cfg.BrokerConfig, c.cfg.PerBroker[n.ID])
	} else {
		var tiered map[string]string
		if t := c.cfg.Tiered; t != nil {
			tiered = t.ControllerConfig()
		}
		props = cluster.Render(n, voters, c.cfg.Brokers, tiered, c.cfg.ControllerConfig)
		heap = c.cfg.ControllerHeapMB
	}
	propsPath := filepath.Join(dir, "server.properties")
	if err := os.WriteFile(propsPath, []byte(props), 0o644); err != nil {
		return nil, dir, err
	}
	logDirBinds, err := c.prepareLogDirs(n, dir)
	if err != nil {
		return nil, dir, err
	}
	if c.cfg.Tiered != nil && n.Role == cluster.RoleBroker {
		remote := c.HostRemoteDir()
		if err := os.MkdirAll(remote, 0o777); err != nil {
			return nil, dir, err
		}
		logDirBinds = append(logDirBinds, remote+":"+cluster.RemoteDir)
	}
	formatArgs := strings.Join(append(cluster.FormatArgs(c.version, c.cfg.ELR, c.cfg.TransactionVersion, c.cfg.ShareVersion),
		c.kraft.FormatArgs(n)...), " ")
	ip, _ := netip.ParseAddr(n.IP)
	req := testcontainers.ContainerRequest{
		Image:    image,
		Name:     n.Name,
		Hostname: fmt.Sprintf("%s-%d", n.Role, n.ID),
		Labels: map[string]string{Label: c.cfg.RunID, "org.kchaos.node": fmt.Sprint(n.ID),
			"org.kchaos.role": string(n.Role)},
		Env: map[string]string{
			"KCHAOS_CLUSTER_ID":  cluster.ClusterID(c.cfg.RunID),
			"KCHAOS_FORMAT_ARGS": formatArgs,
			"KAFKA_HEAP_OPTS":    fmt.Sprintf("-Xms%dm -Xmx%dm", heap/2, heap),
		},
		Networks:       []string{c.network.Name},
		NetworkAliases: map[string][]string{c.network.Name: {fmt.Sprintf("%s-%d", n.Role, n.ID)}},
		HostConfigModifier: func(hc *container.HostConfig) {
			hc.CapAdd = append(hc.CapAdd, "NET_ADMIN")
			hc.Binds = append(hc.Binds,
				filepath.Join(dir, "data")+":"+cluster.DataDir,
				propsPath+":/etc/kafka/server.properties:ro")
			hc.Binds = append(hc.Binds, logDirBinds...)
		},
		EndpointSettingsModifier: func(m map[string]*network.EndpointSettings) {
			if es, ok := m[c.network.Name]; ok {
				es.IPAMConfig = &network.EndpointIPAMConfig{IPv4Address: ip}
			}
		},
	}
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: req, Started: true})
	var dc *testcontainers.DockerContainer
	if ctr != nil {
		dc, _ = ctr.(*testcontainers.DockerContainer)
	}
	if err != nil {
		return dc, dir, fmt.Errorf("start %s %d: %w", n.Role, n.ID, err)
	}
	return dc, dir, nil
}

// RunID is the value of the org.kchaos.run label.
func (c *Cluster) RunID() string { return c.cfg.RunID }

// Config is the cluster's configuration with defaults filled.
func (c *Cluster) Config() cluster.Config { return c.cfg }

// Version is the Kafka release.
func (c *Cluster) Version() cluster.Version { return c.version }

// Bootstrap is the brokers' addresses, reachable from the host.
func (c *Cluster) Bootstrap() []string {
	out := make([]string, 0, len(c.brokers))
	for _, id := range c.brokers {
		out = append(out, c.nodes[id].Addr())
	}
	return out
}

// Brokers returns the broker nodes in id order.
func (c *Cluster) Brokers() []cluster.Node { return c.pick(c.brokers) }

// Controllers returns the controller nodes in id order.
func (c *Cluster) Controllers() []cluster.Node { return c.pick(c.controllers) }

func (c *Cluster) pick(ids []int32) []cluster.Node {
	out := make([]cluster.Node, 0, len(ids))
	for _, id := range slices.Sorted(slices.Values(ids)) {
		out = append(out, c.nodes[id])
	}
	return out
}

// Node returns the node with id.
func (c *Cluster) Node(id int32) (cluster.Node, bool) {
	n, ok := c.nodes[id]
	return n, ok
}

// HostDataDir is the host folder bind-mounted at cluster.DataDir in node
// id's container: its Kafka log dir. It survives kill -9 and restart.
// Faults reach it through Files, which works for every backend.
func (c *Cluster) HostDataDir(id int32) string {
	return filepath.Join(c.dataDirs[id], "data")
}

// HostRemoteDir is the host folder every broker of a tiered cluster
// (Config.Tiered) mounts at cluster.RemoteDir: the remote tier, shared by
// all brokers, surviving kill -9 and readable from the host.
func (c *Cluster) HostRemoteDir() string {
	return filepath.Join(c.cfg.DataRoot, c.cfg.RunID, "remote")
}

// Files is node id's log dir, read and cut on the host side of its bind
// mount: that works while the container is stopped, when Exec cannot.
func (c *Cluster) Files(id int32) (cluster.LogFiles, error) {
	if _, err := c.container(id); err != nil {
		return nil, err
	}
	return cluster.LocalDir(c.HostDataDir(id)), nil
}

// ContainerIDs is each node's container id (Docker's), by node id: a run
// on a reused cluster (kchaos explore) records them in run.json, so that
// which runs shared which containers can be read off the run folders.
func (c *Cluster) ContainerIDs() map[int32]string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make(map[int32]string, len(c.containers))
	for id, ctr := range c.containers {
		out[id] = ctr.GetContainerID()
	}
	return out
}

// SetLogDir changes where Teardown copies the nodes' logs ("": nowhere).
// A cluster reused by several runs writes each run's slice of the logs
// itself (harness.reuse): its teardown must not copy the whole logs into
// the folder of the run that started it.
func (c *Cluster) SetLogDir(dir string) {
	c.mu.Lock()
	c.cfg.LogDir = dir
	c.mu.Unlock()
}

// NetworkName is the name of the run's Docker network.
func (c *Cluster) NetworkName() string {
	if c.network == nil {
		return ""
	}
	return c.network.Name
}
