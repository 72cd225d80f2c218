package network

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kchaos/kchaos/nemesis"
)

// rttSample is TCP connect times on one link.
type rttSample []time.Duration

func (s rttSample) min() time.Duration { return slices.Min(s) }

func (s rttSample) median() time.Duration {
	c := slices.Clone(s)
	slices.Sort(c)
	return c[len(c)/2]
}

func (s rttSample) micros() []int64 {
	var out []int64
	for _, d := range s {
		out = append(out, d.Microseconds())
	}
	return out
}

// netemProbe is the link a netem proof measures: connects from node from
// (hostSide: from the kchaos host) to a listener, through node shaped's
// kchaos class; dirs is how many of the two directions are delayed.
type netemProbe struct {
	from   int32
	to     netip.AddrPort
	peer   int32
	shaped int32
	dirs   int
}

const hostSide = -1

// rttConnects is how many connects a measurement makes.
const rttConnects = 5

// pickProbe chooses the first shaped link whose both ends run.
func (f *netemFault) pickProbe(ctx context.Context, e *nemesis.Env, peers map[int32][]netip.Addr) (*netemProbe, error) {
	byIP := map[netip.Addr]int32{}
	for _, id := range e.AllNodes() {
		n, _ := e.Cluster.Node(id)
		if ip, err := netip.ParseAddr(n.IP); err == nil {
			byIP[ip] = id
		}
	}
	for _, id := range slices.Sorted(maps.Keys(peers)) {
		if !e.RunsUnpaused(ctx, id) {
			continue
		}
		n, ap, err := e.ListenAddr(id)
		if err != nil {
			return nil, err
		}
		if f.shape == ShapeClients {
			return &netemProbe{from: hostSide, to: ap, peer: id, shaped: id, dirs: 1}, nil
		}
		for _, ip := range peers[id] {
			p, ok := byIP[ip]
			if !ok || !e.RunsUnpaused(ctx, p) {
				continue
			}
			_, pap, err := e.ListenAddr(p)
			if err != nil {
				return nil, err
			}
			dirs := 1
			self, _ := netip.ParseAddr(n.IP)
			if slices.Contains(peers[p], self) {
				dirs = 2
			}
			return &netemProbe{from: id, to: pap, peer: p, shaped: id, dirs: dirs}, nil
		}
	}
	return nil, errors.New("no shaped link has both ends running: nothing to measure")
}

// connectTimes times rttConnects TCP connects on the probe's link.
func connectTimes(ctx context.Context, e *nemesis.Env, p *netemProbe) (rttSample, error) {
	var s rttSample
	if p.from == hostSide {
		for range rttConnects {
			begin := time.Now()
			c, err := e.DialHost(ctx, p.to.String(), 10*time.Second)
			if err != nil {
				return nil, fmt.Errorf("host->%s: %w", p.to, err)
			}
			s = append(s, time.Since(begin))
			_ = c.Close()
		}
		return s, nil
	}
	script := fmt.Sprintf(`timeout 30 bash -c 'for i in $(seq %d); do s=${EPOCHREALTIME/./}; : 2>/dev/null 3<>/dev/tcp/%s/%d && echo "us $(( ${EPOCHREALTIME/./} - s ))"; done'; true`,
		rttConnects, p.to.Addr(), p.to.Port())
	out, err := e.Cluster.Exec(ctx, p.from, "sh", "-c", script)
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "us "); ok {
			us, err := strconv.ParseInt(v, 10, 64)
			if err == nil {
				s = append(s, time.Duration(us)*time.Microsecond)
			}
		}
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("node %d -> %s: no connect succeeded (%q)", p.from, p.to, strings.TrimSpace(out))
	}
	return s, nil
}

// measure picks the probe link and times it before the qdiscs go in.
func (f *netemFault) measure(ctx context.Context, e *nemesis.Env, peers map[int32][]netip.Addr) *rttSample {
	p, err := f.pickProbe(ctx, e, peers)
	if err != nil {
		return nil
	}
	s, err := connectTimes(ctx, e, p)
	if err != nil {
		return nil
	}
	f.probe = p
	return &s
}

// classStats is what `tc -s class show` says of the kchaos class.
type classStats struct {
	rate         string
	pkts, drops  int64
	found        bool
	netemLine    string
	netemDrops   int64
	filterTarget map[string]bool // matched destination keys, "0ae7fa02/ffffffff"
}

// readTC reads the kchaos qdiscs, class and filters of node id on dev.
func readTC(ctx context.Context, e *nemesis.Env, id int32, dev string) (classStats, error) {
	script := fmt.Sprintf("tc -s qdisc show dev %[1]s; echo ==; tc -s class show dev %[1]s; echo ==; tc filter show dev %[1]s", dev)
	out, err := e.Cluster.Exec(ctx, id, "sh", "-c", script)
	if err != nil {
		return classStats{}, err
	}
	return parseTC(out), nil
}

func parseTC(out string) classStats {
	st := classStats{filterTarget: map[string]bool{}}
	parts := strings.SplitN(out, "==\n", 3)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	qd := strings.Split(parts[0], "\n")
	for i, l := range qd {
		if strings.HasPrefix(l, "qdisc netem "+netemChild) {
			st.netemLine = strings.TrimSpace(l)
			if i+1 < len(qd) {
				_, st.netemDrops = sentLine(qd[i+1])
			}
		}
	}
	cl := strings.Split(parts[1], "\n")
	for i, l := range cl {
		fs := strings.Fields(l)
		if len(fs) < 3 || fs[0] != "class" || fs[1] != "htb" || fs[2] != netemClass {
			continue
		}
		st.found = true
		if j := slices.Index(fs, "rate"); j >= 0 && j+1 < len(fs) {
			st.rate = fs[j+1]
		}
		if i+1 < len(cl) {
			st.pkts, st.drops = sentLine(cl[i+1])
		}
	}
	for _, l := range strings.Split(parts[2], "\n") {
		if fs := strings.Fields(l); len(fs) >= 2 && fs[0] == "match" {
			st.filterTarget[fs[1]] = true
		}
	}
	return st
}

// sentLine reads " Sent 123 bytes 4 pkt (dropped 5, overlimits 0 requeues 0)".
func sentLine(l string) (pkts, drops int64) {
	fs := strings.Fields(strings.NewReplacer("(", " ", ")", " ", ",", " ").Replace(l))
	for i := 0; i+1 < len(fs); i++ {
		switch fs[i+1] {
		case "pkt":
			pkts, _ = strconv.ParseInt(fs[i], 10, 64)
		}
		if fs[i] == "dropped" {
			drops, _ = strconv.ParseInt(fs[i+1], 10, 64)
		}
	}
	return pkts, drops
}

// u32Key is how tc prints a u32 match on a /32 destination.
func u32Key(ip netip.Addr) string {
	b := ip.As4()
	return fmt.Sprintf("%02x%02x%02x%02x/ffffffff", b[0], b[1], b[2], b[3])
}

// Prove proves each part of the spec: the tc tree (proveTC) when there is
// a rate or a netem qdisc, the loss rules (proveLoss, netem_loss.go) when
// there is a loss.
func (f *netemFault) Prove(ctx context.Context, e *nemesis.Env) (map[string]any, error) {
	if len(f.touched) == 0 {
		return nil, fmt.Errorf("no node took the qdiscs (skipped %v)", f.skipped)
	}
	proof := map[string]any{}
	if f.spec.needsTC() {
		if err := f.proveTC(ctx, e, proof); err != nil {
			return proof, err
		}
	}
	if f.spec.Loss > 0 {
		return proof, f.proveLoss(ctx, e, proof)
	}
	return proof, nil
}

// proveTC reads back, on every node it shaped, what the kernel installed
// (the htb class and its rate, the netem qdisc and its parameters, a
// filter per peer), then sends connects over one shaped link and checks
// that they went through the kchaos class (its packet counter grew); with
// a delay, the fastest of those connects must exceed the link's round
// trip before the fault by 90% of the added delay less jitter, once per
// shaped direction. The netem qdisc's own drop counter is recorded.
func (f *netemFault) proveTC(ctx context.Context, e *nemesis.Env, proof map[string]any) error {
	installed := map[string]string{}
	var errs []error
	wantRate := 0.0
	if f.spec.Rate != "" {
		wantRate, _ = parseLinkRate(f.spec.Rate)
	}
	for _, id := range f.touched {
		for _, dev := range slices.Sorted(maps.Keys(f.links[id])) {
			st, err := readTC(ctx, e, id, dev)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			key := fmt.Sprintf("%d %s", id, dev)
			var missing []string
			if !st.found {
				missing = append(missing, "class "+netemClass)
			}
			if wantRate > 0 {
				if got, err := parseLinkRate(st.rate); err != nil || got < wantRate*0.99 || got > wantRate*1.01 {
					missing = append(missing, fmt.Sprintf("rate %s (kernel says %q)", f.spec.Rate, st.rate))
				}
			}
			if f.spec.netemQdisc() {
				for _, k := range []struct {
					on   bool
					word string
				}{{f.spec.Delay > 0, "delay"}, {f.spec.Duplicate > 0, "duplicate"}, {f.spec.Reorder > 0, "reorder"}} {
					if k.on && !strings.Contains(st.netemLine, " "+k.word+" ") {
						missing = append(missing, "netem "+k.word)
					}
				}
			}
			for _, ip := range f.links[id][dev] {
				if !st.filterTarget[u32Key(ip)] {
					missing = append(missing, "filter for "+ip.String())
				}
			}
			installed[key] = fmt.Sprintf("class %s rate %s, %d filters", netemClass, st.rate, len(st.filterTarget))
			if st.netemLine != "" {
				installed[key] += "; " + st.netemLine
				proof["netem_dropped"] = st.netemDrops
			}
			if len(missing) > 0 {
				errs = append(errs, fmt.Errorf("node %d %s: the kernel does not show %s", id, dev, strings.Join(missing, ", ")))
			}
		}
	}
	proof["installed"] = installed
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return f.proveTraffic(ctx, e, proof)
}

// proveTraffic sends the connects and judges the counters and the delay.
func (f *netemFault) proveTraffic(ctx context.Context, e *nemesis.Env, proof map[string]any) error {
	p := f.probe
	if p == nil {
		peers := map[int32][]netip.Addr{}
		for id, byDev := range f.links {
			for _, ips := range byDev {
				peers[id] = append(peers[id], ips...)
			}
		}
		var err error
		if p, err = f.pickProbe(ctx, e, peers); err != nil {
			return err
		}
		f.probe = p
	}
	dev := ""
	for d, ips := range f.links[p.shaped] {
		if p.from == hostSide || slices.ContainsFunc(ips, func(ip netip.Addr) bool { return ip == p.to.Addr() }) {
			dev = d
		}
	}
	if dev == "" {
		return fmt.Errorf("node %d: the probe's link to %s is not shaped", p.shaped, p.to)
	}
	before, err := readTC(ctx, e, p.shaped, dev)
	if err != nil {
		return err
	}
	s, err := connectTimes(ctx, e, p)
	if err != nil {
		return fmt.Errorf("measuring the link: %w", err)
	}
	after, err := readTC(ctx, e, p.shaped, dev)
	if err != nil {
		return err
	}
	from := "host"
	if p.from != hostSide {
		from = fmt.Sprint(p.from)
	}
	proof["link"] = fmt.Sprintf("%s->%s (class on node %d %s)", from, p.to, p.shaped, dev)
	proof["class_packets"] = after.pkts - before.pkts
	proof["rtt_us"] = s.micros()
	if after.pkts <= before.pkts {
		return fmt.Errorf("node %d %s: %d connects passed no packet through class %s (packets %d before, %d after)",
			p.shaped, dev, len(s), netemClass, before.pkts, after.pkts)
	}
	if f.spec.Delay <= 0 {
		return nil
	}
	if f.baseline == nil {
		return errors.New("no round trip was measured before the fault: the added delay cannot be told")
	}
	added := time.Duration(p.dirs) * (f.spec.Delay.Std() - f.spec.Jitter.Std())
	want := f.baseline.median() + added*9/10
	proof["baseline_rtt_us"] = f.baseline.median().Microseconds()
	proof["added_delay_directions"] = p.dirs
	proof["min_rtt_wanted_us"] = want.Microseconds()
	if s.min() < want {
		return fmt.Errorf("link %s: fastest connect %s, want at least %s (baseline %s + 90%% of %d x (delay %s - jitter %s))",
			proof["link"], s.min(), want, f.baseline.median(), p.dirs, f.spec.Delay, f.spec.Jitter)
	}
	return nil
}
