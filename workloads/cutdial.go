package workloads

import (
	"context"
	"errors"
	"net"
	"sync"
)

// CutDialer dials normally until Cut, then closes every connection it
// made and refuses new ones: a member's Kill (GroupMember, ShareMember)
// ends its client as a crash does, its connections closing before any
// leave request could be sent. Exported for the Go driver packages
// (workloads/franz, workloads/kafkago), whose clients take a dial
// function; the Java client is killed with its JVM.
type CutDialer struct {
	// Tap, when set, wraps each connection as it is made (the franz share
	// member reads the broker's answers to its acks on its own
	// connections); nil: the connections are not read.
	Tap func(net.Conn) net.Conn

	mu    sync.Mutex
	dead  bool
	conns []net.Conn
}

// errMemberKilled is a cut dialer's refusal.
var errMemberKilled = errors.New("member killed by the nemesis")

// Dial is the client's dial function.
func (d *CutDialer) Dial(ctx context.Context, network, host string) (net.Conn, error) {
	d.mu.Lock()
	dead := d.dead
	d.mu.Unlock()
	if dead {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errMemberKilled}
	}
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead {
		c.Close()
		return nil, &net.OpError{Op: "dial", Net: network, Err: errMemberKilled}
	}
	if d.Tap != nil {
		c = d.Tap(c)
	}
	d.conns = append(d.conns, c)
	return c, nil
}

// Cut closes every connection made and refuses further dials.
func (d *CutDialer) Cut() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dead = true
	for _, c := range d.conns {
		c.Close()
	}
	d.conns = nil
}
