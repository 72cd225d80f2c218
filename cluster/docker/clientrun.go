package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/kchaos/kchaos/cluster"
)

var _ cluster.ClientRunner = (*Cluster)(nil)

// RunClient runs a client program (the Java driver's JVM) in a container
// of the run's own beside the brokers: the run's Kafka image (its JRE),
// on the run's network at an address of its own (clientIPs), labelled
// with the run id (Teardown and Clean remove it as they remove the
// nodes), spec.Dir bind-mounted read-only at spec.MountDir, and
// spec.Cmd as the entry point (the image's own entry point, which starts
// a broker and prints, is replaced), with its standard streams attached
// to kchaos.
//
// Through the Docker API (the moby client the backend already holds),
// not the docker CLI: the backend needs only the engine's socket, not
// the CLI on PATH; attaching is one hijacked connection demultiplexed
// with stdcopy, and killing the container itself (not a CLI process,
// whose death would leave the container running) is ContainerKill, as
// for a node.
func (c *Cluster) RunClient(ctx context.Context, spec cluster.ClientSpec) (cluster.ClientProc, error) {
	if c.network == nil {
		return nil, fmt.Errorf("run %s: no network", c.cfg.RunID)
	}
	if len(spec.Cmd) == 0 {
		return nil, errors.New("client: no command")
	}
	ip, seq, err := c.clients.take(c.subnet)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("kchaos-%s-client-%s-%d", c.cfg.RunID, spec.Name, seq)
	p := &clientProc{c: c, ip: ip, name: name, done: make(chan struct{})}
	release := true
	defer func() {
		if release {
			c.clients.drop(ip)
		}
	}()
	var binds []string
	if spec.Dir != "" {
		binds = append(binds, spec.Dir+":"+spec.MountDir+":ro")
	}
	created, err := c.docker.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name: name,
		Config: &container.Config{
			Image:      c.cfg.Image,
			Entrypoint: spec.Cmd[:1],
			Cmd:        spec.Cmd[1:],
			Hostname:   fmt.Sprintf("client-%s-%d", spec.Name, seq),
			Labels: map[string]string{Label: c.cfg.RunID, "org.kchaos.role": "client",
				"org.kchaos.client": spec.Name},
			AttachStdin: true, AttachStdout: true, AttachStderr: true,
			OpenStdin: true, StdinOnce: true,
		},
		HostConfig: &container.HostConfig{
			Binds:       binds,
			NetworkMode: container.NetworkMode(c.network.Name),
		},
		NetworkingConfig: &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
			c.network.Name: {IPAMConfig: &network.EndpointIPAMConfig{IPv4Address: ip}},
		}},
	})
	if err != nil {
		return nil, fmt.Errorf("client %s: create: %w", name, err)
	}
	p.id = created.ID
	fail := func(err error) (cluster.ClientProc, error) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_, _ = c.docker.ContainerRemove(rctx, p.id, client.ContainerRemoveOptions{Force: true})
		return nil, fmt.Errorf("client %s: %w", name, err)
	}
	att, err := c.docker.ContainerAttach(ctx, p.id, client.ContainerAttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return fail(fmt.Errorf("attach: %w", err))
	}
	p.att = att.HijackedResponse
	if _, err := c.docker.ContainerStart(ctx, p.id, client.ContainerStartOptions{}); err != nil {
		p.att.Close()
		return fail(fmt.Errorf("start: %w", err))
	}
	stderr := spec.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	outR, outW := io.Pipe()
	p.stdout = outR
	go func() {
		_, err := stdcopy.StdCopy(outW, stderr, p.att.Reader)
		outW.CloseWithError(err) // nil: EOF
		close(p.done)
	}()
	c.clients.add(ip, p)
	release = false
	return p, nil
}

// clientProc is one client container.
type clientProc struct {
	c      *Cluster
	id     string
	name   string
	ip     netip.Addr
	att    client.HijackedResponse
	stdout io.Reader
	done   chan struct{} // closed when the attached output ends
	once   sync.Once
	err    error
}

func (p *clientProc) Stdin() io.WriteCloser { return clientStdin{p} }
func (p *clientProc) Stdout() io.Reader     { return p.stdout }
func (p *clientProc) Addr() netip.Addr      { return p.ip }

// clientStdin writes to the attached connection; Close half-closes it,
// which the engine passes on as the program's end of input (StdinOnce).
type clientStdin struct{ p *clientProc }

func (s clientStdin) Write(b []byte) (int, error) { return s.p.att.Conn.Write(b) }
func (s clientStdin) Close() error                { return s.p.att.CloseWrite() }

// Kill sends SIGKILL to the container: the program dies at once, its
// sockets closing with it.
func (p *clientProc) Kill(ctx context.Context) error {
	if _, err := p.c.docker.ContainerKill(ctx, p.id, client.ContainerKillOptions{Signal: "KILL"}); err != nil {
		return fmt.Errorf("client %s: kill: %w", p.name, err)
	}
	return nil
}

// Wait waits for the program's output to end (at most limit, then kills
// the container), removes the container and gives its address back.
func (p *clientProc) Wait(limit time.Duration) error {
	p.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), limit+time.Minute)
		defer cancel()
		select {
		case <-p.done:
		case <-time.After(limit):
			p.err = p.Kill(ctx)
		}
		wr := p.c.docker.ContainerWait(ctx, p.id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
		select {
		case <-wr.Result:
		case err := <-wr.Error:
			p.err = errors.Join(p.err, err)
		case <-ctx.Done():
		}
		p.att.Close()
		if _, err := p.c.docker.ContainerRemove(ctx, p.id, client.ContainerRemoveOptions{Force: true}); err != nil && !isGone(err) {
			p.err = errors.Join(p.err, fmt.Errorf("client %s: remove: %w", p.name, err))
		}
		p.c.clients.drop(p.ip)
	})
	return p.err
}

// isGone: the container is gone already (the teardown removed it).
func isGone(err error) bool {
	var nf interface{ NotFound() }
	return errors.As(err, &nf) || strings.Contains(err.Error(), "No such container")
}

// clientSet is the run's client containers by address.
type clientSet struct {
	mu    sync.Mutex
	seq   int
	order []netip.Addr // in start order
	held  map[netip.Addr]*clientProc
}

// clientHostMin is the lowest host number a client container takes:
// below it are the gateway and the nodes (controllers .10+, brokers .20+,
// layout), so the clients take addresses from the top of the subnet
// down. Explicit addresses, not Docker's: Docker's allocator would hand a
// stopped node's address (a stopped container releases its endpoint) to
// a client, and the node could not start again.
const clientHostMin = 32

// clientIP is the address of the n-th client slot (0: the subnet's last
// usable address), or false when the subnet has no room for it.
func clientIP(subnet netip.Prefix, n int) (netip.Addr, bool) {
	if !subnet.Addr().Is4() || subnet.Bits() > 26 || n < 0 {
		return netip.Addr{}, false
	}
	size := 1 << (32 - subnet.Bits())
	host := size - 2 - n // size-1 is the broadcast address
	if host < clientHostMin {
		return netip.Addr{}, false
	}
	return hostAddr(subnet, host), true
}

// take reserves a free client address and a sequence number for a name.
func (s *clientSet) take(subnet netip.Prefix) (netip.Addr, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = map[netip.Addr]*clientProc{}
	}
	for n := 0; ; n++ {
		ip, ok := clientIP(subnet, n)
		if !ok {
			return netip.Addr{}, 0, fmt.Errorf("subnet %s: no free address for another client container (%d run)", subnet, len(s.held))
		}
		if _, used := s.held[ip]; !used {
			s.held[ip] = nil // reserved; add fills it
			s.seq++
			return ip, s.seq, nil
		}
	}
}

func (s *clientSet) add(ip netip.Addr, p *clientProc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held[ip] = p
	s.order = append(s.order, ip)
}

func (s *clientSet) drop(ip netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.held, ip)
	for i, a := range s.order {
		if a == ip {
			s.order = append(s.order[:i:i], s.order[i+1:]...)
			break
		}
	}
}

// addrs is the running clients' addresses in start order.
func (s *clientSet) addrs() []netip.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]netip.Addr(nil), s.order...)
}
