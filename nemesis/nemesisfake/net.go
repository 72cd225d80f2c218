package nemesisfake

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kchaos/kchaos/cluster"
)

// Net is the fake cluster's network beyond iptables: each node's
// kchaos tc tree (as the netem fault builds it), the client side's
// address, and a kernel with or without netem. Probes and host dials are
// answered from the rules and qdiscs, never sent anywhere.
type Net struct {
	TC      map[int32]*TC
	NoNetem bool // the kernel lacks sch_netem, as this machine's does
	// IgnoreTC accepts tc commands and changes nothing: a fault that
	// "takes" but has no effect, for the proof's failure path.
	IgnoreTC bool
	// AnswerPaused makes a paused node answer Kafka requests anyway.
	AnswerPaused bool
	// Dropped counts, per node and rule, the packets a loss rule dropped;
	// LossInert makes loss rules drop nothing (a rule that took but has
	// no effect).
	Dropped   map[int32]map[string]int64
	LossInert bool
}

// TC is one node's kchaos tc tree: the class's rate, the netem qdisc's
// parameters, the filtered peers and the packets the class passed.
type TC struct {
	Rate    string
	Netem   []string
	Filters []netip.Addr
	Pkts    int64
}

// clientAddr is the kchaos host's address as the nodes see it.
const clientAddr = "10.9.0.1"

// The cluster is a client side (ClientAddrs) and a Dialer
// (DialFromHost) of the nemesis; its tests check the latter.
var _ cluster.ClientSide = (*Cluster)(nil)

func (f *Cluster) HostAddr(context.Context) (netip.Addr, error) {
	return netip.MustParseAddr(clientAddr), nil
}

func (f *Cluster) ClientAddrs(ctx context.Context) ([]netip.Addr, error) {
	a, err := f.HostAddr(ctx)
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return append([]netip.Addr{a}, f.ClientCtrs...), err
}

// Capabilities: what the fake simulates (iptables, tc, processes, log dirs
// on the local disk, the client side); disks and upgrades are wrappers'
// (nemesis/disk's diskCluster, upgradingCluster), so that a test can take
// them away.
func (f *Cluster) Capabilities() cluster.Caps {
	return cluster.AllCaps() &^ cluster.NewCaps(cluster.CapDisk, cluster.CapUpgrade)
}

// byIP is the node with address ip; the caller holds f.Mu.
func (f *Cluster) byIP(ip string) (cluster.Node, bool) {
	for _, n := range f.Nodes {
		if n.IP == ip {
			return n, true
		}
	}
	return cluster.Node{}, false
}

// dropsLocked reports whether a kchaos rule on node a drops traffic with
// address ip (from or to it), on port when the rule names one.
func (f *Cluster) dropsLocked(a int32, ip string, port int) bool {
	for _, r := range f.Rules[a] {
		if !strings.Contains(r, " "+ip+"/32 ") || isLossRule(r) {
			continue
		}
		if strings.Contains(r, "port ") && !strings.Contains(r, fmt.Sprintf("port %d ", port)) {
			continue
		}
		return true
	}
	return false
}

// delayLocked is the delay node a's netem adds to packets for ip, and
// counts the packet in its class.
func (f *Cluster) delayLocked(a int32, ip string) time.Duration {
	t := f.Net.TC[a]
	if t == nil || !slices.Contains(t.Filters, netip.MustParseAddr(ip)) {
		return 0
	}
	t.Pkts++
	for i, a := range t.Netem {
		if a == "delay" && i+1 < len(t.Netem) {
			d, _ := time.ParseDuration(t.Netem[i+1])
			return d
		}
	}
	return 0
}

// DialFromHost answers the proofs' connections from the kchaos host.
func (f *Cluster) DialFromHost(_ context.Context, addr string, _ time.Duration) (net.Conn, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	ap := netip.MustParseAddrPort(addr)
	n, ok := f.byIP(ap.Addr().String())
	if !ok {
		return nil, fmt.Errorf("dial %s: fake: no such node", addr)
	}
	st := f.States[n.ID]
	if !st.Running {
		return nil, fmt.Errorf("dial tcp %s: connect: no route to host", addr)
	}
	if f.dropsLocked(n.ID, clientAddr, int(ap.Port())) {
		return nil, fmt.Errorf("dial tcp %s: %w", addr, os.ErrDeadlineExceeded)
	}
	f.delayLocked(n.ID, clientAddr)
	client, server := net.Pipe()
	if st.Paused && !f.Net.AnswerPaused {
		// A frozen process: the read deadline passes with no answer (at
		// once: the fake need not wait the real 2 s).
		return silentConn{client}, nil
	}
	{
		go func() {
			buf := make([]byte, 64)
			if _, err := server.Read(buf); err == nil {
				_, _ = server.Write([]byte{0, 0, 0, 8})
			}
			_ = server.Close()
		}()
	}
	return client, nil
}

// silentConn never answers: a read times out.
type silentConn struct{ net.Conn }

func (silentConn) Read([]byte) (int, error)    { return 0, os.ErrDeadlineExceeded }
func (silentConn) Write(b []byte) (int, error) { return len(b), nil }

var devTCP = regexp.MustCompile(`/dev/tcp/([0-9.]+)/([0-9]+)`)

// netExec serves tc, ip route and probe commands; ok is false for others.
// The caller holds f.Mu.
func (f *Cluster) netExec(id int32, cmd []string) (string, error, bool) {
	if slices.Equal(cmd, []string{"tc", "qdisc", "show"}) {
		return f.tcShow(id, false), nil, true
	}
	if len(cmd) != 3 || cmd[0] != "sh" || cmd[1] != "-c" {
		return "", nil, false
	}
	script := cmd[2]
	switch {
	case strings.Contains(script, "/dev/tcp/"):
		return f.probe(id, script), nil, true
	case strings.Contains(script, "/dev/udp/"):
		f.lossProbe(id, script)
		return "", nil, true
	case strings.HasPrefix(script, "ip -o route get"):
		var out []string
		for _, l := range strings.Split(script, "\n") {
			out = append(out, strings.TrimPrefix(l, "ip -o route get ")+" dev eth0 src "+f.Nodes[id].IP+" uid 0")
		}
		return strings.Join(out, "\n") + "\n", nil, true
	case strings.HasPrefix(script, "tc -s qdisc show"):
		return f.tcShow(id, true), nil, true
	case strings.Contains(script, "\ntc "):
		out, err := f.tcScript(id, script)
		return out, err, true
	}
	return "", nil, false
}

func (f *Cluster) probe(id int32, script string) string {
	m := devTCP.FindStringSubmatch(script)
	n, ok := f.byIP(m[1])
	timed := strings.Contains(script, "EPOCHREALTIME")
	reach := "rc=0 "
	switch {
	case !ok:
		reach = "rc=1 bash: connect: Network is unreachable"
	case !f.States[n.ID].Running:
		reach = "rc=124 "
	case f.dropsLocked(id, m[1], 0) || f.dropsLocked(n.ID, f.Nodes[id].IP, 0):
		reach = "rc=124 "
	}
	if !timed {
		f.delayLocked(id, m[1])
		return reach + "\n"
	}
	if reach != "rc=0 " {
		return ""
	}
	var out []string
	for range 5 { // the netem proof's connects (rttConnects)
		d := 100*time.Microsecond + f.delayLocked(id, m[1]) + f.delayLocked(n.ID, f.Nodes[id].IP)
		out = append(out, fmt.Sprintf("us %d", d.Microseconds()))
	}
	return strings.Join(out, "\n") + "\n"
}

// tcShow prints the node's qdiscs (stats: one device's qdiscs, classes
// and filters, as readTC asks).
func (f *Cluster) tcShow(id int32, stats bool) string {
	t := f.Net.TC[id]
	if t == nil {
		return "qdisc noqueue 0: dev eth0 root refcnt 2 \n"
	}
	out := "qdisc htb ca05: dev eth0 root refcnt 3 r2q 10 default 0 direct_packets_stat 0 direct_qlen 1000\n"
	if len(t.Netem) > 0 {
		out += "qdisc netem ca06: dev eth0 parent ca05:1 limit 1000 " + strings.Join(t.Netem, " ") + " \n"
		if stats {
			out += " Sent 100 bytes 2 pkt (dropped 1, overlimits 0 requeues 0) \n"
		}
	}
	if !stats {
		return out
	}
	out += "==\n"
	out += fmt.Sprintf("class htb ca05:1 root prio 0 rate %s ceil %s burst 1600b cburst 1600b \n", strings.ToUpper(t.Rate[:1])+t.Rate[1:], t.Rate)
	out += fmt.Sprintf(" Sent %d bytes %d pkt (dropped 0, overlimits 0 requeues 0) \n", t.Pkts*60, t.Pkts)
	out += "==\n"
	for _, ip := range t.Filters {
		out += "filter parent ca05: protocol ip pref 1 u32 chain 0 fh 800::800 order 2048 key ht 800 bkt 0 *flowid ca05:1\n"
		b := ip.As4() // tc's u32 match on a /32 destination
		out += fmt.Sprintf("  match %02x%02x%02x%02x/ffffffff at 16\n", b[0], b[1], b[2], b[3])
	}
	return out
}

// tcScript runs a `set -e` script of tc lines as the netem fault writes
// them, stopping at the first error as sh would.
func (f *Cluster) tcScript(id int32, script string) (string, error) {
	for _, line := range strings.Split(script, "\n") {
		fs := strings.Fields(line)
		if len(fs) == 0 || line == "set -e" {
			continue
		}
		if f.Net.IgnoreTC {
			continue
		}
		if f.Net.TC == nil {
			f.Net.TC = map[int32]*TC{}
		}
		t := f.Net.TC[id]
		switch {
		case len(fs) > 6 && fs[1] == "qdisc" && fs[2] == "add" && fs[5] == "root":
			if t != nil {
				return "Error: Exclusivity flag on, cannot modify.", fmt.Errorf("exit 2")
			}
			f.Net.TC[id] = &TC{}
		case len(fs) > 6 && fs[1] == "qdisc" && fs[2] == "del":
			if t == nil {
				return "Error: Invalid handle.", fmt.Errorf("exit 2")
			}
			delete(f.Net.TC, id)
		case fs[1] == "class" && t != nil:
			t.Rate = fs[slices.Index(fs, "rate")+1]
		case fs[1] == "qdisc" && slices.Contains(fs, "netem") && t != nil:
			if f.Net.NoNetem {
				return "Error: Specified qdisc kind is unknown.", errors.New("exit 2: Error: Specified qdisc kind is unknown.")
			}
			for _, a := range fs[slices.Index(fs, "netem")+1:] {
				if us, ok := strings.CutSuffix(a, "us"); ok {
					var n int
					fmt.Sscan(us, &n)
					a = (time.Duration(n) * time.Microsecond).String()
				}
				t.Netem = append(t.Netem, a)
			}
		case fs[1] == "filter" && t != nil:
			ip, _, _ := strings.Cut(fs[slices.Index(fs, "dst")+1], "/")
			t.Filters = append(t.Filters, netip.MustParseAddr(ip))
		default:
			return "", fmt.Errorf("fake tc: unexpected line %q", line)
		}
	}
	return "", nil
}

// isLossRule tells a netem loss rule (random drops) from a cut.
func isLossRule(r string) bool { return strings.Contains(r, "-m statistic") }

var devUDP = regexp.MustCompile(`seq ([0-9]+)\); do echo x 2>/dev/null >/dev/udp/([0-9.]+)/`)

// lossProbe sends the probe's datagrams through node id's OUTPUT loss
// rule for their address: it drops n x p of them (rounded down), counted.
// The caller holds f.Mu.
func (f *Cluster) lossProbe(id int32, script string) {
	m := devUDP.FindStringSubmatch(script)
	var n int
	fmt.Sscan(m[1], &n)
	for _, r := range f.Rules[id] {
		if !isLossRule(r) || !strings.HasPrefix(r, "-A OUTPUT -d "+m[2]+"/32 ") || f.Net.LossInert {
			continue
		}
		fs := strings.Fields(r)
		p, _ := strconv.ParseFloat(fs[slices.Index(fs, "--probability")+1], 64)
		if f.Net.Dropped == nil {
			f.Net.Dropped = map[int32]map[string]int64{}
		}
		if f.Net.Dropped[id] == nil {
			f.Net.Dropped[id] = map[string]int64{}
		}
		f.Net.Dropped[id][r] += int64(float64(n) * p)
	}
}

// rulesWithCounters is `iptables -S -v`: each rule with its counters
// before its target, as iptables prints them. The caller holds f.Mu.
func (f *Cluster) rulesWithCounters(id int32) string {
	out := "-P INPUT ACCEPT -c 0 0\n-P FORWARD ACCEPT -c 0 0\n-P OUTPUT ACCEPT -c 0 0\n"
	for _, r := range f.Rules[id] {
		n := f.Net.Dropped[id][r]
		head, target, _ := strings.Cut(r, " -j ")
		out += fmt.Sprintf("%s -c %d %d -j %s\n", head, n, n*30, target)
	}
	return out
}
