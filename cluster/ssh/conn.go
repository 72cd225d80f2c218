package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// dialer logs in to the hosts of a Spec and keeps one connection per host.
type dialer struct {
	cfg  *xssh.ClientConfig
	sudo bool
	mu   sync.Mutex
	conn map[string]*xssh.Client
	ag   net.Conn
}

// newDialer reads the known_hosts file and the key (or opens the agent).
// Host keys are always checked: there is no option to skip the check.
func newDialer(a Auth) (*dialer, error) {
	var err error
	if a.KnownHosts, err = expandHome(a.KnownHosts); err != nil {
		return nil, fmt.Errorf("ssh.known_hosts: %w", err)
	}
	if a.Key, err = expandHome(a.Key); err != nil {
		return nil, fmt.Errorf("ssh.key: %w", err)
	}
	hk, err := knownhosts.New(a.KnownHosts)
	if err != nil {
		return nil, fmt.Errorf("ssh.known_hosts: %w", err)
	}
	d := &dialer{sudo: a.Sudo, conn: map[string]*xssh.Client{}}
	var methods []xssh.AuthMethod
	if a.Key != "" {
		b, err := os.ReadFile(a.Key)
		if err != nil {
			return nil, fmt.Errorf("ssh.key: %w", err)
		}
		signer, err := xssh.ParsePrivateKey(b)
		if err != nil {
			return nil, fmt.Errorf("ssh.key %s: %w (a key with a passphrase: load it into an agent and set agent: true)", a.Key, err)
		}
		methods = append(methods, xssh.PublicKeys(signer))
	}
	if a.Agent {
		sock := os.Getenv("SSH_AUTH_SOCK")
		if sock == "" {
			return nil, errors.New("ssh.agent: SSH_AUTH_SOCK is not set")
		}
		c, err := net.Dial("unix", sock)
		if err != nil {
			return nil, fmt.Errorf("ssh.agent: %w", err)
		}
		d.ag = c
		methods = append(methods, xssh.PublicKeysCallback(agent.NewClient(c).Signers))
	}
	d.cfg = &xssh.ClientConfig{User: a.User, Auth: methods, HostKeyCallback: hk, Timeout: 10 * time.Second}
	return d, nil
}

func (d *dialer) client(ctx context.Context, addr string) (*xssh.Client, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c, ok := d.conn[addr]; ok {
		return c, nil
	}
	var nd net.Dialer
	dctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	raw, err := nd.DialContext(dctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ssh %s: %w", addr, err)
	}
	cc, chans, reqs, err := xssh.NewClientConn(raw, addr, d.cfg)
	if err != nil {
		raw.Close()
		return nil, fmt.Errorf("ssh %s: %w", addr, err)
	}
	c := xssh.NewClient(cc, chans, reqs)
	// Keepalives find a dead connection; the next command dials again.
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for range t.C {
			if _, _, err := c.SendRequest("keepalive@kchaos", true, nil); err != nil {
				d.drop(addr, c)
				return
			}
		}
	}()
	d.conn[addr] = c
	return c, nil
}

func (d *dialer) drop(addr string, c *xssh.Client) {
	d.mu.Lock()
	if d.conn[addr] == c {
		delete(d.conn, addr)
	}
	d.mu.Unlock()
	c.Close()
}

// exitError is a remote command's non-zero exit.
type exitError struct {
	Addr, Cmd string
	Code      int
	Output    string
}

func (e *exitError) Error() string {
	return fmt.Sprintf("%s: %s: exit %d: %s", e.Addr, e.Cmd, e.Code, bytes.TrimSpace([]byte(e.Output)))
}

// run runs script on addr in one session (through sudo when configured)
// with stdin, and returns stdout and stderr. A non-zero exit is an
// *ExitError carrying stderr (or stdout when stderr is empty).
func (d *dialer) run(ctx context.Context, addr, script string, stdin io.Reader) (stdout, stderr []byte, err error) {
	for attempt := 0; ; attempt++ {
		c, err := d.client(ctx, addr)
		if err != nil {
			return nil, nil, err
		}
		sess, err := c.NewSession()
		if err != nil {
			// A connection that died (the host restarted sshd, a long
			// partition) is dialled again once.
			d.drop(addr, c)
			if attempt == 0 {
				continue
			}
			return nil, nil, fmt.Errorf("ssh %s: session: %w", addr, err)
		}
		return runSession(ctx, sess, addr, wrap(script, d.sudo), stdin)
	}
}

func runSession(ctx context.Context, sess *xssh.Session, addr, cmd string, stdin io.Reader) ([]byte, []byte, error) {
	defer sess.Close()
	var out, errb bytes.Buffer
	sess.Stdout, sess.Stderr = &out, &errb
	if stdin != nil {
		sess.Stdin = stdin
	}
	done := make(chan error, 1)
	if err := sess.Start(cmd); err != nil {
		return nil, nil, fmt.Errorf("ssh %s: %w", addr, err)
	}
	go func() { done <- sess.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			return out.Bytes(), errb.Bytes(), nil
		}
		var ee *xssh.ExitError
		if errors.As(err, &ee) {
			msg := errb.String()
			if msg == "" {
				msg = out.String()
			}
			return out.Bytes(), errb.Bytes(), &exitError{Addr: addr, Cmd: cmd, Code: ee.ExitStatus(), Output: msg}
		}
		return out.Bytes(), errb.Bytes(), fmt.Errorf("ssh %s: %s: %w", addr, cmd, err)
	case <-ctx.Done():
		_ = sess.Signal(xssh.SIGKILL)
		return out.Bytes(), errb.Bytes(), fmt.Errorf("ssh %s: %s: %w", addr, cmd, ctx.Err())
	}
}

func (d *dialer) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for a, c := range d.conn {
		c.Close()
		delete(d.conn, a)
	}
	if d.ag != nil {
		d.ag.Close()
	}
}

// RunOn runs one script on addr as a.User (through sudo when a.Sudo) and
// returns its stdout and stderr together: for tools and tests that prepare
// or inspect a host outside a run.
func RunOn(ctx context.Context, a Auth, addr, script string, stdin io.Reader) (string, error) {
	d, err := newDialer(a)
	if err != nil {
		return "", err
	}
	defer d.close()
	out, errb, err := d.run(ctx, sshAddr(addr), script, stdin)
	return string(out) + string(errb), err
}
