package network

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/nemesis"
)

// Loss is iptables, not netem, everywhere. A netem step's loss (`loss:
// 10%`) drops each packet on a chosen link with probability P, through
// `iptables -m statistic --mode random --probability P -j DROP` inside the
// node, and never through netem's loss parameter, whatever the kernel.
//
// Why one implementation: netem's `loss P` (no correlation, the only form
// a step can write) and the statistic match's random mode are the same
// model, an independent Bernoulli trial per packet, decided at the node's
// egress (netem's qdisc, the OUTPUT chain), so the two cannot be told
// apart by the traffic. The statistic match needs no sch_netem (this
// machine's kernel has none), and its rule counter counts exactly the
// packets it dropped, which is the proof of effect. Two implementations
// chosen by the kernel would make the same scenario run a different code
// path on another machine, for nothing.
//
// Which packets: the same links netem shapes. A node-to-node link is
// dropped at each end's egress (OUTPUT -d peer on both nodes, as netem
// shapes each end's egress), so both directions lose P. A client link
// (shape clients) has only one end kchaos can reach, the broker: both
// directions are dropped there (OUTPUT -d and INPUT -s the client side's
// address), so both lose P as well.
//
// The rules carry their own comment, LossComment, not RuleComment: `heal:
// netem` (and `heal: all`, the final heal) removes them with the qdiscs,
// and `heal: partition` leaves them alone, because a loss is part of a
// netem fault, whose heal is netem's. A Docker node's rules live in its
// network namespace and go with its container (teardown, `kchaos clean`).
const lossComment = "kchaos-netem"

// lossRule is one rule of a node's loss: its chain and the address it
// matches as destination (-d, OUTPUT) or source (-s, INPUT).
type lossRule struct {
	Chain string
	Dir   string
	Addr  netip.Addr
}

func (r lossRule) String() string { return r.Chain + " " + r.Dir + " " + r.Addr.String() }

// probability is P as iptables takes it: a fraction of 1.
func probability(p nemesis.Percent) string { return strconv.FormatFloat(float64(p)/100, 'f', -1, 64) }

// lossRulesFor is node's rules for the peers its links reach.
func (f *netemFault) lossRulesFor(peers []netip.Addr) []lossRule {
	var out []lossRule
	for _, ip := range peers {
		out = append(out, lossRule{"OUTPUT", "-d", ip})
		if f.shape == ShapeClients {
			out = append(out, lossRule{"INPUT", "-s", ip})
		}
	}
	return out
}

// lossLine is the iptables command that adds (-I) or deletes (-D) r.
func lossLine(op string, r lossRule, p nemesis.Percent) string {
	return fmt.Sprintf("iptables -w 5 %s %s %s %s -m statistic --mode random --probability %s -m comment --comment %s -j DROP",
		op, r.Chain, r.Dir, r.Addr, probability(p), lossComment)
}

// installLoss inserts node id's loss rules, refusing a node that already
// has some (two losses on one link would multiply unseen); what a failing
// script added is taken back.
func (f *netemFault) installLoss(ctx context.Context, e *nemesis.Env, id int32, peers []netip.Addr) error {
	have, err := listTagged(ctx, e, id, lossComment)
	if err != nil {
		return err
	}
	if len(have) > 0 {
		return fmt.Errorf("already has %d kchaos netem loss rule(s): heal netem first", len(have))
	}
	rules := f.lossRulesFor(peers)
	lines := []string{"set -e"}
	for _, r := range rules {
		lines = append(lines, lossLine("-I", r, f.spec.Loss))
	}
	if _, err := e.Cluster.Exec(ctx, id, "sh", "-c", strings.Join(lines, "\n")); err != nil {
		_, _ = removeLossRules(ctx, e, id)
		return fmt.Errorf("loss rules: %w", err)
	}
	f.loss[id] = rules
	return nil
}

// removeLossRules deletes node id's netem loss rules and returns how many.
func removeLossRules(ctx context.Context, e *nemesis.Env, id int32) (int, error) {
	if !netemCapable(e) {
		return 0, nil // netem is refused there: nothing to remove
	}
	return removeTagged(ctx, e, id, lossComment)
}

// ListLossRules returns node id's netem loss rules (as -D argument lists).
// Tests use it to check that a heal left none.
func ListLossRules(ctx context.Context, e *nemesis.Env, id int32) ([][]string, error) {
	return listTagged(ctx, e, id, lossComment)
}

func (f *netemFault) lossJSON() map[string][]string {
	out := map[string][]string{}
	for id, rs := range f.loss {
		for _, r := range rs {
			out[fmt.Sprint(id)] = append(out[fmt.Sprint(id)], r.String())
		}
	}
	return out
}

// lossReading is one loss rule as `iptables -S -v` prints it back.
type lossReading struct {
	rule        lossRule
	probability float64
	pkts        int64
}

// parseLossRules reads the LossComment rules of `iptables -w 5 -S -v`:
// "-A OUTPUT -d 10.231.7.21/32 -m statistic --mode random --probability
// 0.10000000009 -m comment --comment kchaos-netem -c 21 630 -j DROP".
func parseLossRules(out string) []lossReading {
	var rs []lossReading
	for _, line := range strings.Split(out, "\n") {
		fs := strings.Fields(line)
		if len(fs) < 2 || fs[0] != "-A" {
			continue
		}
		if i := slices.Index(fs, "--comment"); i < 0 || i+1 >= len(fs) || strings.Trim(fs[i+1], `"`) != lossComment {
			continue
		}
		r := lossReading{rule: lossRule{Chain: fs[1]}, probability: -1}
		for i := 0; i+1 < len(fs); i++ {
			switch fs[i] {
			case "-s", "-d":
				r.rule.Dir = fs[i]
				a, _, _ := strings.Cut(fs[i+1], "/")
				r.rule.Addr, _ = netip.ParseAddr(a)
			case "--probability":
				r.probability, _ = strconv.ParseFloat(fs[i+1], 64)
			case "-c":
				r.pkts, _ = strconv.ParseInt(fs[i+1], 10, 64)
			}
		}
		rs = append(rs, r)
	}
	return rs
}

func readLoss(ctx context.Context, e *nemesis.Env, id int32) ([]lossReading, error) {
	out, err := e.Cluster.Exec(ctx, id, "iptables", "-w", "5", "-S", "-v")
	if err != nil {
		return nil, err
	}
	return parseLossRules(out), nil
}

// Loss probe sizes: enough datagrams that a working rule drops none with
// a chance below lossProofMiss, within [lossProbeMin, lossProbeMax].
const (
	lossProofMiss = 1e-6
	lossProbeMin  = 100
	lossProbeMax  = 3000
	// lossProbePort takes the probe's datagrams: nothing listens there on
	// UDP (the peer answers port unreachable, or nothing).
	lossProbePort = 9
)

// lossProbeSize is how many datagrams the probe sends for loss p, and
// whether that many make a drop certain enough to require one.
func lossProbeSize(p nemesis.Percent) (n int, required bool) {
	q := float64(p) / 100
	if q >= 1 {
		return lossProbeMin, true
	}
	want := int(math.Ceil(math.Log(lossProofMiss) / math.Log1p(-q)))
	n = min(max(want, lossProbeMin), lossProbeMax)
	return n, n >= want
}

// lossProbeScript sends n UDP datagrams from inside a node to addr (bash's
// /dev/udp: one datagram per write, no handshake, no wait), so that each
// crosses the node's OUTPUT chain once.
func lossProbeScript(addr netip.Addr, n int) string {
	return fmt.Sprintf(`timeout 30 bash -c 'for i in $(seq %d); do echo x 2>/dev/null >/dev/udp/%s/%d; done'; true`,
		n, addr, lossProbePort)
}

// proveLoss reads every loss rule back (each with its probability, on
// each node Inject gave rules), then sends datagrams over one shaped link
// from its shaped end and wants the rule's own counter to grow: the
// packets it dropped. With a loss too small for the probe to be sure of
// a drop (below about 0.46 %), the count is recorded, not required.
func (f *netemFault) proveLoss(ctx context.Context, e *nemesis.Env, proof map[string]any) error {
	want := float64(f.spec.Loss) / 100
	read := map[string][]string{}
	var errs []error
	for _, id := range f.touched {
		got, err := readLoss(ctx, e, id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, r := range f.loss[id] {
			i := slices.IndexFunc(got, func(g lossReading) bool { return g.rule == r })
			if i < 0 {
				errs = append(errs, fmt.Errorf("node %d: the kernel shows no loss rule %s", id, r))
				continue
			}
			if math.Abs(got[i].probability-want) > 1e-6 {
				errs = append(errs, fmt.Errorf("node %d: loss rule %s has probability %v, want %v", id, r, got[i].probability, want))
			}
			read[fmt.Sprint(id)] = append(read[fmt.Sprint(id)], fmt.Sprintf("%s probability %v", r, got[i].probability))
		}
	}
	proof["loss_rules"] = read
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	var from int32 = -1
	var rule lossRule
	for _, id := range f.touched {
		if i := slices.IndexFunc(f.loss[id], func(r lossRule) bool { return r.Chain == "OUTPUT" }); i >= 0 {
			from, rule = id, f.loss[id][i]
			break
		}
	}
	if from < 0 {
		return errors.New("no node has a loss rule to probe")
	}
	counter := func() (int64, error) {
		got, err := readLoss(ctx, e, from)
		if err != nil {
			return 0, err
		}
		for _, g := range got {
			if g.rule == rule {
				return g.pkts, nil
			}
		}
		return 0, fmt.Errorf("node %d: loss rule %s is gone", from, rule)
	}
	before, err := counter()
	if err != nil {
		return err
	}
	n, required := lossProbeSize(f.spec.Loss)
	if _, err := e.Cluster.Exec(ctx, from, "sh", "-c", lossProbeScript(rule.Addr, n)); err != nil {
		return fmt.Errorf("loss probe: %w", err)
	}
	after, err := counter()
	if err != nil {
		return err
	}
	dropped := after - before
	proof["loss_probe"] = fmt.Sprintf("%d->%s: %d udp datagrams (rule %s on node %d)", from, rule.Addr, n, rule, from)
	proof["loss_sent"] = n
	proof["loss_dropped"] = dropped
	if dropped <= 0 && required {
		return fmt.Errorf("node %d: the loss rule %s dropped none of %d datagrams (a %v%% loss misses all of them with a chance below %g)",
			from, rule, n, float64(f.spec.Loss), lossProofMiss)
	}
	if !required {
		proof["loss_required"] = false
	}
	return nil
}
