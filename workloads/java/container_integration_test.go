//go:build integration

package java

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/kchaos/kchaos/cluster/docker"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
	"github.com/kchaos/kchaos/workloads/workloadstest"
)

// TestJavaContainer: on the Docker backend the java driver's JVM runs in
// a container of the run's own beside the brokers: labelled with the run
// id (the teardown and kchaos clean remove it), on the run's network at
// an address of its own in the run's subnet (not the gateway, the host's),
// named by the cluster's client side (ClientAddrs, what cut-clients
// cuts), and its sends reach the brokers from there. Killing the JVM
// (the container itself, SIGKILL) ends a send in flight as info, and the
// container is reaped: gone, and out of the client side.
func TestJavaContainer(t *testing.T) {
	c, adm := workloadstest.Admin(t)
	topic := "wl-java-container"
	workloadstest.CreateTopic(t, adm, topic, [][]int32{{0, 1, 2}})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cfg := workloads.Config{Driver: workloads.DriverJava, Topic: topic, Partitions: 1, Producers: 1, Acks: workloads.AcksAll,
		RequestTimeout: workloads.Duration(60 * time.Second), ClusterVersion: c.Config().KafkaVersion, Runner: c}
	cfg.Defaults()
	if err := (javaDriver{}).Prepare(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	// A bootstrap list of its own (the brokers in reverse order): a JVM of
	// the test's own, not one another test shares.
	boot := slices.Clone(c.Bootstrap())
	slices.Reverse(boot)
	p, err := javaDriver{}.NewProducer(cfg, boot, 0)
	if err != nil {
		t.Fatal(err)
	}
	jp := p.(*javaProducer)
	defer jp.Close()
	j := jp.j
	if j.proc == nil || j.cmd != nil {
		t.Fatalf("the JVM runs on the host (proc %v, cmd %v), want a container", j.proc, j.cmd)
	}
	ip := j.proc.Addr()
	if off, err := p.Send(ctx, workloads.Message{Partition: 0, Value: "from-the-container"}); err != nil || off < 0 {
		t.Fatalf("send from the container: offset %d, %v", off, err)
	}

	dc, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	clients := func() map[string]string { // container name -> its address on the run network
		list, err := dc.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.
			Add("label", docker.Label+"="+c.RunID()).Add("label", "org.kchaos.role=client")})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, ctr := range list.Items {
			ci, err := dc.ContainerInspect(ctx, ctr.ID, client.ContainerInspectOptions{})
			if err != nil || ci.Container.NetworkSettings == nil {
				continue
			}
			if ep := ci.Container.NetworkSettings.Networks[c.NetworkName()]; ep != nil {
				out[ci.Container.Name] = ep.IPAddress.String()
				if ep.IPAddress == ip && (ci.Container.State == nil || !ci.Container.State.Running) {
					t.Errorf("client container %s at %s does not run", ci.Container.Name, ip)
				}
			}
		}
		return out
	}
	found := ""
	for name, a := range clients() {
		if a == ip.String() {
			found = name
		}
	}
	if found == "" {
		t.Fatalf("no container labelled %s=%s on network %s at the JVM's address %s (clients: %v)",
			docker.Label, c.RunID(), c.NetworkName(), ip, clients())
	}
	nw, err := dc.NetworkInspect(ctx, c.NetworkName(), client.NetworkInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	host, err := c.HostAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	inSubnet := false
	for _, cfg := range nw.Network.IPAM.Config {
		inSubnet = inSubnet || cfg.Subnet.Contains(ip)
	}
	if !inSubnet || ip == host {
		t.Errorf("the JVM's address %s: want one of its own in the run's subnet %+v (gateway %s)", ip, nw.Network.IPAM.Config, host)
	}
	addrs, err := c.ClientAddrs(ctx)
	if err != nil || len(addrs) < 2 || addrs[0] != host || !slices.Contains(addrs, ip) {
		t.Errorf("client side %v, %v: want the gateway %s first, then the JVM's %s", addrs, err, host, ip)
	}
	t.Logf("JVM in container %s at %s (gateway %s, client side %v)", found, ip, host, addrs)

	// A send in flight: partition 5 of a 1-partition topic waits for
	// metadata (max.block.ms, a minute here), so the send stays in the
	// JVM until the kill.
	res := make(chan error, 1)
	go func() {
		_, err := p.Send(ctx, workloads.Message{Partition: 5, Value: "in-flight"})
		res <- err
	}()
	time.Sleep(3 * time.Second)
	select {
	case err := <-res:
		t.Fatalf("the send ended before the kill: %v", err)
	default:
	}
	killed := time.Now()
	j.kill()
	select {
	case err := <-res:
		cl := workloads.ClassifySend(err, cfg.Acks, cfg.RetriesEnabled())
		if cl.Type != histories.Info || err == nil {
			t.Errorf("the send in flight at the kill ended %s (%s): %v; want info", cl.Type, cl.Name, err)
		}
		t.Logf("in flight at the kill: %s %s after %s: %v", cl.Type, cl.Name, time.Since(killed).Round(time.Millisecond), err)
	case <-time.After(30 * time.Second):
		t.Fatal("the send in flight did not end within 30 s of the kill")
	}
	if a, ok := clients()[found]; ok {
		t.Errorf("container %s (%s) is still there after the kill", found, a)
	}
	if addrs, _ := c.ClientAddrs(ctx); slices.Contains(addrs, ip) {
		t.Errorf("client side %v still names the killed JVM's %s", addrs, ip)
	}
}
