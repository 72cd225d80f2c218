package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Proxy. The zero value works.
type Options struct {
	// ListenHost is the address the proxy's listeners bind (default
	// 127.0.0.1); AdvertiseHost is the host written into rewritten
	// responses (default ListenHost), for when clients reach the proxy
	// under another name.
	ListenHost    string
	AdvertiseHost string
	// DialTimeout bounds the dial to a broker for each client connection
	// (default 10 s).
	DialTimeout time.Duration
	// OnAction is called for every action, on the connection's own
	// goroutine and in the connection's order: it must return quickly.
	OnAction func(Action)
	// OnError is told what the proxy could not do (a response it could
	// not decode to rewrite, a broker it could not dial, a frame out of
	// bounds); the proxy goes on. Optional.
	OnError func(error)
	// Now is the clock of Action.Time (default time.Now).
	Now func() time.Time
}

// Action is one action taken, as a history event needs it.
type Action struct {
	RuleID        RuleID
	Kind          ActionKind
	APIKey        int16
	API           string // kmsg's name of APIKey ("EndTxn")
	Version       int16
	CorrelationID int32 // the client's correlation id of the request acted on
	ClientID      string
	Broker        int32 // the upstream node id (-1: a bootstrap address not yet tied to one)
	Time          time.Time
	// Code is the error code the client was given (error-response,
	// rewrite-error).
	Code int16
	// ErrorCodes are the error codes of the broker's response the client
	// did not see as the broker gave them: the dropped response
	// (drop-response), the response before its rewrite (rewrite-error),
	// the duplicate's response (duplicate-request). Each code once, in the
	// order met.
	ErrorCodes []int16
	// Delay is the delay applied (delay) or the gap before the duplicate.
	Delay time.Duration
	// Note says what else happened: "no response" when a connection
	// closed before the response acted on came.
	Note string
}

// Proxy is a Kafka-protocol proxy: one listener per broker address it
// knows, each forwarding to its broker, the rules acting on the requests
// that pass. See the package doc.
type Proxy struct {
	opts Options

	rulesMu  sync.RWMutex
	active   []*rule // copy-on-write: readers take the slice under RLock
	all      map[RuleID]*rule
	nextRule RuleID

	mu        sync.Mutex
	started   bool
	closed    bool
	bootstrap []*listener
	byNode    map[nodeAddr]*listener
	listeners []*listener
	sessions  map[*session]struct{}

	wg   sync.WaitGroup
	done chan struct{}
}

// nodeAddr is what a listener stands for: a node id and the address the
// broker advertised under it.
type nodeAddr struct {
	node int32
	addr string
}

// listener is one of the proxy's ports: it forwards to upstream and
// knows the upstream's node id (-1 until learned for a bootstrap address).
type listener struct {
	ln       net.Listener
	upstream string
	node     atomic.Int32
	port     int32
	// addr is the listener's address as its clients reach it.
	addr string
	// route marks a broker-to-broker listener (Route): its responses
	// pass with the brokers' own addresses and versions.
	route bool
}

// New makes a proxy; Start opens it.
func New(opts Options) *Proxy {
	if opts.ListenHost == "" {
		opts.ListenHost = "127.0.0.1"
	}
	if opts.AdvertiseHost == "" {
		opts.AdvertiseHost = opts.ListenHost
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Proxy{
		opts:     opts,
		all:      map[RuleID]*rule{},
		byNode:   map[nodeAddr]*listener{},
		sessions: map[*session]struct{}{},
		done:     make(chan struct{}),
	}
}

// Start opens one listener per bootstrap address (host:port of a broker
// as clients would reach it). The proxy lives until Close or until ctx
// ends.
func (p *Proxy) Start(ctx context.Context, bootstrap []string) error {
	if len(bootstrap) == 0 {
		return errors.New("proxy: no bootstrap address")
	}
	p.mu.Lock()
	if p.started || p.closed {
		p.mu.Unlock()
		return errors.New("proxy: already started")
	}
	p.started = true
	p.mu.Unlock()
	for _, addr := range bootstrap {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			p.Close()
			return fmt.Errorf("proxy: bootstrap %q: %w", addr, err)
		}
		p.mu.Lock()
		l, err := p.listenLocked(-1, addr, p.opts.ListenHost)
		if err == nil {
			p.bootstrap = append(p.bootstrap, l)
		}
		p.mu.Unlock()
		if err != nil {
			p.Close()
			return err
		}
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		select {
		case <-ctx.Done():
			p.shutdown()
		case <-p.done:
		}
	}()
	return nil
}

// Bootstrap is the proxy's address for each bootstrap address, in
// Start's order: what clients take as their bootstrap servers.
func (p *Proxy) Bootstrap() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, len(p.bootstrap))
	for i, l := range p.bootstrap {
		out[i] = l.addr
	}
	return out
}

// Listeners is every listener's upstream address, node id and proxy
// port, for logs and tests.
func (p *Proxy) Listeners() []listenerInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]listenerInfo, len(p.listeners))
	for i, l := range p.listeners {
		out[i] = listenerInfo{Upstream: l.upstream, Node: l.node.Load(), Addr: l.addr, Route: l.route}
	}
	return out
}

// listenerInfo describes one listener of the proxy.
type listenerInfo struct {
	Upstream string // the broker's address
	Node     int32  // its node id; -1 for a bootstrap address not tied to one
	Addr     string // the proxy's address for it
	Route    bool   // a broker-to-broker listener (Route)
}

// Route opens a listener on host that forwards to upstream, the
// inter-broker listener of broker node, and returns its address, which
// that broker is to advertise for its inter-broker listener: the brokers'
// replication (and every other broker-to-broker request) then passes the
// proxy, and the rules act on it as on the clients' requests (a follower
// is a client whose id is broker-<id>-fetcher-<n>). host is an address
// the brokers reach the kchaos host by (the Docker network's gateway).
// Nothing on a route is rewritten: the brokers advertise the proxy's
// addresses themselves, and they speak the versions their
// metadata.version asks for, some beyond what kmsg decodes (such a
// response is forwarded as it came; a rule on it still acts). Route may
// be called before Start, so that the brokers can start with it.
func (p *Proxy) Route(node int32, host, upstream string) (string, error) {
	if node < 0 {
		return "", fmt.Errorf("proxy: route to node %d: want a broker id", node)
	}
	if _, _, err := net.SplitHostPort(upstream); err != nil {
		return "", fmt.Errorf("proxy: route to %q: %w", upstream, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l, err := p.listenLocked(node, upstream, host)
	if err != nil {
		return "", err
	}
	l.route = true
	return l.addr, nil
}

// listenLocked opens a listener on host for upstream under node (p.mu
// held).
func (p *Proxy) listenLocked(node int32, upstream, host string) (*listener, error) {
	if p.closed {
		return nil, errors.New("proxy: closed")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("proxy: listen for %s: %w", upstream, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	l := &listener{ln: ln, upstream: upstream, port: int32(port), addr: net.JoinHostPort(p.opts.AdvertiseHost, strconv.Itoa(port))}
	if host != p.opts.ListenHost {
		l.addr = net.JoinHostPort(host, strconv.Itoa(port))
	}
	l.node.Store(node)
	if node >= 0 && host == p.opts.ListenHost {
		p.byNode[nodeAddr{node, upstream}] = l
	}
	p.listeners = append(p.listeners, l)
	p.wg.Add(1)
	go p.accept(l)
	return l, nil
}

// mapAddress is the proxy's address for a broker's advertised one,
// opening a listener the first time a (node, address) is seen. A
// bootstrap listener for the same address, not yet tied to a node, is
// tied to this node instead: the node id is learned from Metadata.
func (p *Proxy) mapAddress(node int32, host string, port int32) (string, int32) {
	addr := net.JoinHostPort(host, strconv.Itoa(int(port)))
	p.mu.Lock()
	defer p.mu.Unlock()
	if l, ok := p.byNode[nodeAddr{node, addr}]; ok {
		return p.opts.AdvertiseHost, l.port
	}
	for _, l := range p.bootstrap {
		if l.upstream == addr && l.node.Load() == -1 {
			l.node.Store(node)
			p.byNode[nodeAddr{node, addr}] = l
			return p.opts.AdvertiseHost, l.port
		}
	}
	l, err := p.listenLocked(node, addr, p.opts.ListenHost)
	if err != nil {
		p.report(err)
		return host, port
	}
	return p.opts.AdvertiseHost, l.port
}

func (p *Proxy) accept(l *listener) {
	defer p.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			select {
			case <-p.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// out of file descriptors and the like: the listener stays
			p.report(fmt.Errorf("proxy: accept for %s: %w", l.upstream, err))
			time.Sleep(10 * time.Millisecond)
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			return
		}
		s := newSession(p, l, c)
		p.sessions[s] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go func() {
			defer p.wg.Done()
			s.run()
			p.mu.Lock()
			delete(p.sessions, s)
			p.mu.Unlock()
		}()
	}
}

// Close stops every listener and connection and waits until all of the
// proxy's goroutines have returned. Safe to call more than once.
func (p *Proxy) Close() error {
	p.shutdown()
	p.wg.Wait()
	return nil
}

// shutdown closes the listeners and connections without waiting.
func (p *Proxy) shutdown() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	close(p.done)
	for _, l := range p.listeners {
		l.ln.Close()
	}
	for s := range p.sessions {
		s.close()
	}
}

func (p *Proxy) report(err error) {
	if p.opts.OnError != nil && err != nil {
		p.opts.OnError(err)
	}
}

func (p *Proxy) emit(a Action) {
	if p.opts.OnAction != nil {
		p.opts.OnAction(a)
	}
}
