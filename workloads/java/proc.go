package java

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kchaos/kchaos/cluster"
)

// The line protocol between the java driver and its JVM
// (javaclient/KchaosClient.java), one JSON object a line. The JVM first
// says {"id":0,"ready":true,"version":V}, V the kafka-clients it loaded.
// Then every request carries an id, an op and (but for the opens) a
// client handle; every response carries the request's id and either the
// op's result or "error" (a JavaError):
//
//	open-producer {props}                    -> {handle}
//	send {handle, topic, partition, key?, value} -> {offset}   (asynchronous: answered by the send's callback)
//	open-consumer {props}                    -> {handle}
//	offsets {handle, topic, partitions, rule, timeout_ms} -> {offsets: {"p": o}}
//	assign {handle, topic, offsets: {"p": o}} -> {ok}
//	poll {handle, timeout_ms}                -> {records: [{p,o,v,e}], errors: [{partition, error}], resets: {"p": o}, next: {"p": o}}
//	open-txn {props, consumer_props}         -> {handle}   (txn.go)
//	txn-id {handle, begin, timeout_ms}       -> {producer_id, epoch}
//	txn-send {handle, topic, partition, value} -> {offset}
//	txn-poll {handle, topic, partitions, timeout_ms} -> {records}
//	txn-end {handle, commit}                 -> {ok}
//	open-member {props, topic}               -> {handle}   (group.go; a JVM of its own)
//	poll, commit {handle, topic, offsets, timeout_ms}, leave {handle, timeout_ms} -> {..., member_id, generation}
//	rebalance-done {handle, cb}              -> {ok}
//	open-admin {props}                       -> {handle}   (admin.go)
//	admin {handle, action, topic, partitions?, replication_factor?, key?, value?, timeout_ms} -> {ok}
//	close {handle}                           -> {}
//
// Responses come in any order: sends complete as the brokers answer. A
// group member's rebalance callback is a line of its own, id 0:
//
//	{"event":"rebalance", handle, cb, kind (assigned|revoked|lost), partitions, member_id, generation}
//
// and the member's client waits (serving commits) until rebalance-done
// names its cb.

// javaResp is one response line.
type javaResp struct {
	ID      int64            `json:"id"`
	Ready   bool             `json:"ready"`
	Version string           `json:"version"`
	Handle  int              `json:"handle"`
	Offset  int64            `json:"offset"`
	Offsets map[string]int64 `json:"offsets"`
	Records []javaRecord     `json:"records"`
	Errors  []javaPartError  `json:"errors"`
	Resets  map[string]int64 `json:"resets"`
	Next    map[string]int64 `json:"next"`
	Error   *JavaError       `json:"error"`
	// Transactions (txn-id).
	ProducerID int64 `json:"producer_id"`
	Epoch      int16 `json:"epoch"`
	// Group members: the client's member id and generation with every
	// answer and event; an event's callback number, kind and partitions.
	MemberID   *string `json:"member_id"`
	Generation *int32  `json:"generation"`
	Event      string  `json:"event"`
	CB         int64   `json:"cb"`
	Kind       string  `json:"kind"`
	Partitions []int32 `json:"partitions"`
	// Share members (share-ack): commitSync's result per partition, nil
	// where the broker applied the acks.
	Results map[string]*JavaError `json:"results"`
}

type javaRecord struct {
	P int32  `json:"p"`
	O int64  `json:"o"`
	V string `json:"v"`
	E int32  `json:"e"` // the batch's partitionLeaderEpoch, -1 unknown
	C int32  `json:"c"` // a share member's delivery count
}

type javaPartError struct {
	Partition int32      `json:"partition"`
	Error     *JavaError `json:"error"`
}

// errJVMGone ends every request of a JVM that exited: like a client closed
// under its sends (info: the JVM may have sent them).
var errJVMGone = fmt.Errorf("java client: the JVM exited: %w", io.ErrClosedPipe)

// jvm is one JVM speaking the protocol: its stdin, the requests waiting
// for their responses, and the tail of its stderr for when it dies.
type jvm struct {
	key     jvmKey
	version string     // kafka-clients as the JVM reported it
	mu      sync.Mutex // guards next and pending
	wmu     sync.Mutex // serializes writes to stdin
	stdin   io.WriteCloser
	next    int64
	pending map[int64]chan javaResp
	done    chan struct{} // closed when stdout ends
	stderr  *tailBuffer
	cmd     *exec.Cmd          // on this host; nil in a container or for a test's fake
	proc    cluster.ClientProc // in a container (startJavaContainer)
	refs    int                // open handles (javaRegistry)
	linger  *time.Timer
	// events receives the lines with an "event" (a group member's
	// callbacks), each on a goroutine of its own: its handler makes
	// requests whose answers this JVM's reader delivers. Set before the
	// first request (under mu).
	events func(javaResp)
}

// newJVMConn speaks the protocol over stdin/stdout and waits for the
// ready line.
func newJVMConn(ctx context.Context, stdin io.WriteCloser, stdout io.Reader, stderr *tailBuffer) (*jvm, error) {
	j := &jvm{stdin: stdin, pending: map[int64]chan javaResp{}, done: make(chan struct{}), stderr: stderr}
	ready := make(chan string, 1)
	go j.read(stdout, ready)
	select {
	case v := <-ready:
		j.version = v
		return j, nil
	case <-j.done:
		return nil, fmt.Errorf("java client: the JVM exited before it was ready%s", stderr.tail())
	case <-ctx.Done():
		_ = stdin.Close()
		return nil, fmt.Errorf("java client: the JVM was not ready: %w", ctx.Err())
	}
}

// read delivers each response to its request until stdout ends.
func (j *jvm) read(stdout io.Reader, ready chan<- string) {
	defer close(j.done)
	br := bufio.NewReaderSize(stdout, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var r javaResp
			if json.Unmarshal(line, &r) == nil {
				if r.ID == 0 && r.Ready {
					select {
					case ready <- r.Version:
					default:
					}
					continue
				}
				if r.ID == 0 && r.Event != "" {
					j.mu.Lock()
					ev := j.events
					j.mu.Unlock()
					if ev != nil {
						go ev(r)
					}
					continue
				}
				j.mu.Lock()
				ch := j.pending[r.ID]
				delete(j.pending, r.ID)
				j.mu.Unlock()
				if ch != nil {
					ch <- r // buffered: never blocks
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// start sends a request and returns the channel its response will come on.
func (j *jvm) start(op string, fields map[string]any) (int64, chan javaResp, error) {
	ch := make(chan javaResp, 1)
	select {
	case <-j.done:
		return 0, nil, errJVMGone
	default:
	}
	j.mu.Lock()
	j.next++
	id := j.next
	j.pending[id] = ch
	j.mu.Unlock()
	req := map[string]any{"id": id, "op": op}
	for k, v := range fields {
		req[k] = v
	}
	b, err := json.Marshal(req)
	if err == nil {
		// Not under mu: the reader takes mu for every response, and a
		// JVM blocked writing its stdout stops reading its stdin.
		j.wmu.Lock()
		_, err = j.stdin.Write(append(b, '\n'))
		j.wmu.Unlock()
		if err != nil {
			err = fmt.Errorf("%w (%v)", errJVMGone, err)
		}
	}
	if err != nil {
		j.mu.Lock()
		delete(j.pending, id)
		j.mu.Unlock()
		return 0, nil, err
	}
	return id, ch, nil
}

// wait waits for a response. When ctx ends first, keep says whether the
// response is still wanted (a poll's: see javaConsumer.Poll); otherwise
// it is dropped when it comes.
func (j *jvm) wait(ctx context.Context, id int64, ch chan javaResp, keep bool) (javaResp, error) {
	select {
	case r := <-ch:
		if r.Error != nil {
			return r, r.Error
		}
		return r, nil
	case <-ctx.Done():
		if !keep {
			j.mu.Lock()
			delete(j.pending, id)
			j.mu.Unlock()
		}
		return javaResp{}, ctx.Err()
	case <-j.done:
		// A response may have come just before the end.
		select {
		case r := <-ch:
			if r.Error != nil {
				return r, r.Error
			}
			return r, nil
		default:
		}
		return javaResp{}, fmt.Errorf("%w%s", errJVMGone, j.stderr.tail())
	}
}

// call is start then wait, dropping a late response.
func (j *jvm) call(ctx context.Context, op string, fields map[string]any) (javaResp, error) {
	id, ch, err := j.start(op, fields)
	if err != nil {
		return javaResp{}, err
	}
	return j.wait(ctx, id, ch, false)
}

// stop closes the JVM's stdin (it closes its clients and exits), and
// kills it if it has not exited after grace. A JVM in a container is
// waited for the same way, then its container is killed (after grace)
// and removed.
func (j *jvm) stop(grace time.Duration) {
	_ = j.stdin.Close()
	if j.proc != nil {
		_ = j.proc.Wait(grace)
		return
	}
	select {
	case <-j.done:
	case <-time.After(grace):
		if j.cmd != nil && j.cmd.Process != nil {
			_ = j.cmd.Process.Kill()
		}
	}
	if j.cmd != nil {
		_ = j.cmd.Wait()
	}
}

// kill ends the JVM at once (SIGKILL): its sockets close with the
// process, and no client of it says goodbye (a group member sends no
// LeaveGroup). A JVM in a container is killed there, the container
// itself (ContainerKill with SIGKILL), then reaped. A test's fake JVM
// (no process) is told by EOF instead.
func (j *jvm) kill() {
	if j.proc != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = j.proc.Kill(ctx)
		cancel()
		_ = j.stdin.Close()
		_ = j.proc.Wait(30 * time.Second)
		return
	}
	if j.cmd == nil || j.cmd.Process == nil {
		_ = j.stdin.Close()
		return
	}
	_ = j.cmd.Process.Kill()
	_ = j.stdin.Close()
	_ = j.cmd.Wait()
}

// javaLinger is how long a JVM without open clients lives on: a workload
// closes its clients at the end of Run and opens new ones for the final
// read, which should find the same JVM (one per run) rather than start
// another.
var javaLinger = 2 * time.Minute

// jvmKey is what a shared JVM is for: a client version, a bootstrap
// list, and where it runs (nil: this host; else the cluster's runner).
type jvmKey struct {
	version, bootstrap string
	runner             cluster.ClientRunner
}

// javaRegistry holds the running JVMs, one per client version, bootstrap
// list and runner, shared by the clients of a run and counted by them.
var javaRegistry = struct {
	sync.Mutex
	m map[jvmKey]*jvm
	// startJVM starts a JVM on this host (tests replace it with a fake).
	startJVM func(ctx context.Context, version string) (*jvm, error)
}{m: map[jvmKey]*jvm{}, startJVM: startJavaProcess}

// startJVMIn starts a JVM where runner runs clients (a container beside
// the brokers), or on this host when runner is nil.
func startJVMIn(ctx context.Context, version string, runner cluster.ClientRunner) (*jvm, error) {
	if runner == nil {
		return javaRegistry.startJVM(ctx, version)
	}
	return startJavaContainer(ctx, version, runner)
}

// acquireJVM returns the JVM for version and bootstrap where runner runs
// clients (nil: this host), starting it (and building the driver first,
// if need be) when none runs.
func acquireJVM(ctx context.Context, version string, bootstrap []string, runner cluster.ClientRunner) (*jvm, error) {
	key := jvmKey{version: version, bootstrap: strings.Join(bootstrap, ","), runner: runner}
	r := &javaRegistry
	r.Lock()
	defer r.Unlock()
	if j := r.m[key]; j != nil {
		select {
		case <-j.done:
			delete(r.m, key) // exited: start another
		default:
			j.refs++
			if j.linger != nil {
				j.linger.Stop()
				j.linger = nil
			}
			return j, nil
		}
	}
	j, err := startJVMIn(ctx, version, runner)
	if err != nil {
		return nil, err
	}
	j.key, j.refs = key, 1
	r.m[key] = j
	return j, nil
}

// releaseJVM gives back one client's hold on j; the last one leaves it
// running for javaLinger, then stops it.
func releaseJVM(j *jvm) {
	r := &javaRegistry
	r.Lock()
	defer r.Unlock()
	j.refs--
	if j.refs > 0 {
		return
	}
	j.linger = time.AfterFunc(javaLinger, func() {
		r.Lock()
		if j.refs > 0 || r.m[j.key] != j {
			r.Unlock()
			return
		}
		delete(r.m, j.key)
		r.Unlock()
		j.stop(5 * time.Second)
	})
}

// javaArgs is the JVM's command line after the java binary, dir the
// driver's build folder as the JVM sees it.
func javaArgs(dir string) []string {
	cp := path.Join(dir, "classes") + ":" + path.Join(dir, "lib", "*")
	return []string{"-XX:+UseSerialGC", "-Xmx512m",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.showDateTime=true",
		"-cp", cp, javaMainClass}
}

// startJavaProcess builds the driver for version if need be, and starts
// its JVM on this host: `java` of JAVA_HOME or PATH, the same host the Go
// clients run on, so it reaches the brokers as they do. That is where
// the JVMs run on a backend without a cluster.ClientRunner (SSH).
func startJavaProcess(ctx context.Context, version string) (*jvm, error) {
	java, err := javaTool("java")
	if err != nil {
		return nil, err
	}
	dir, err := javaBuild(ctx, version)
	if err != nil {
		return nil, err
	}
	// Not CommandContext: the JVM outlives the request that started it.
	cmd := exec.Command(java, javaArgs(filepath.ToSlash(dir))...)
	detach(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	tail := &tailBuffer{max: 16 << 10}
	cmd.Stderr = tail
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("java client: start %s: %w", java, err)
	}
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	j, err := newJVMConn(rctx, stdin, stdout, tail)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	j.cmd = cmd
	return j, nil
}

// javaMountDir is where a JVM in a container finds the driver's build
// folder, bind-mounted read-only.
const javaMountDir = "/kchaos/driver"

// startJavaContainer builds the driver for version on this host if need
// be, and starts its JVM where runner runs clients: on Docker, a
// container of the run's own beside the brokers, from the run's Kafka
// image (its JRE, 17, runs the driver's classes, built --release 17), on
// the run's network with an address of its own, the build folder mounted
// read-only, and `java` with the same flags as on the host. A service's
// client runs beside its brokers, on their network: so does the JVM.
// Its stdin and stdout stay attached to kchaos, the Go side stamps every
// event as its line arrives, so the history keeps one clock.
func startJavaContainer(ctx context.Context, version string, runner cluster.ClientRunner) (*jvm, error) {
	dir, err := javaBuild(ctx, version)
	if err != nil {
		return nil, err
	}
	tail := &tailBuffer{max: 16 << 10}
	proc, err := runner.RunClient(ctx, cluster.ClientSpec{Name: "java", Dir: dir, MountDir: javaMountDir,
		Cmd: append([]string{"java"}, javaArgs(javaMountDir)...), Stderr: tail})
	if err != nil {
		return nil, fmt.Errorf("java client: %w", err)
	}
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	j, err := newJVMConn(rctx, proc.Stdin(), proc.Stdout(), tail)
	if err != nil {
		kctx, kcancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = proc.Kill(kctx)
		kcancel()
		_ = proc.Wait(30 * time.Second)
		return nil, err
	}
	j.proc = proc
	return j, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// tail is ": <the last lines>", or "" when nothing was written.
func (t *tailBuffer) tail() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return ""
	}
	if lines := strings.Split(s, "\n"); len(lines) > 10 {
		s = strings.Join(lines[len(lines)-10:], "\n")
	}
	return "; its stderr ends:\n" + s
}
