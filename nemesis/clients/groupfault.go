package clients

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/nemesis"
)

// Member faults: they act on the workload's consumer-group members, not
// on the cluster's nodes (histories/faults.go: member-kill, member-leave,
// member-start, member-stall). The workload owns the clients; the faults
// reach them through nemesis.Members (Env.Members), which the harness
// hands over (workloads.GroupControl implements it). They are recorded
// like broker faults: an invoke and an ok or info on process -1, the
// member in value.details.member.

// The member faults act on the workload's clients: no backend capability.
var (
	memberKillKind = memberKind(histories.FMemberKill, nemesis.Kind{Heal: memberHeal,
		UndoneBy: []string{histories.FMemberStart}, Color: "#b5651d"})
	memberLeaveKind = memberKind(histories.FMemberLeave, nemesis.Kind{Heal: memberHeal,
		UndoneBy: []string{histories.FMemberStart}, Color: "#c9a227"})
	memberStartKind = memberKind(histories.FMemberStart, nemesis.Kind{Heal: nemesis.UndoOp, Color: histories.OtherFaultColor})
	// A stall ends by itself (after its for:).
	memberStallKind = memberKind(histories.FMemberStall, nemesis.Kind{Heal: nemesis.Instant, Color: "#9c7a3c",
		New: func() nemesis.Params { return &MemberStallParams{} }})
)

// memberKind completes k as a member fault: on kchaos's own clients, so it
// can neither lose what Kafka acked nor move a leader; never drawn (a
// random schedule aims at brokers); its op's outcome is its proof.
func memberKind(name string, k nemesis.Kind) nemesis.Kind {
	k.Name, k.OnClients, k.LosesAcked, k.MovesLeaders, k.Draw = name, true, nemesis.No, nemesis.No, nemesis.NotDrawn
	k.Proof = "acts on the workload's own client: the client's answer is its proof"
	if k.New == nil {
		k.New = func() nemesis.Params { return &MemberParams{} }
	}
	return k
}

// memberHeal starts every group member that a member-kill or member-leave
// left without a client; last in a heal all.
var memberHeal = &nemesis.HealKind{Name: histories.HealMember, Rank: 6, Heal: func(ctx context.Context, e *nemesis.Env, d map[string]any) ([]int32, error) {
	started, err := startMembers(ctx, e)
	if len(started) > 0 {
		d["members_started"] = started
	}
	return nil, err
}, Check: func(p string, st *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	checkMember(v, p, st, "", add)
}}

// MemberParams are a member fault's: the member (member-0, ...), or
// random (the default).
type MemberParams struct {
	Member string `yaml:"member,omitempty"`
}

func (*MemberParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	refuseMemberTarget(p, st, add)
}

// CheckAgainst: the workload has group members, and the one named.
func (mp *MemberParams) CheckAgainst(p string, st *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	checkMember(v, p, st, mp.Member, add)
}

func (mp *MemberParams) Build(st nemesis.Step) nemesis.Fault {
	return &memberFault{op: st.Fault, member: mp.Member}
}

// MemberStallParams are a member-stall's: the member, and how long it is
// stopped.
type MemberStallParams struct {
	Member string `yaml:"member,omitempty"`
	// Stall is how long the member stops polling: longer than the group's
	// max_poll_interval makes it leave.
	Stall nemesis.Duration `yaml:"for,omitempty"`
}

func (sp *MemberStallParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	refuseMemberTarget(p, st, add)
	if sp.Stall <= 0 {
		add(p+".for", "member-stall needs a duration (for: 15s), longer than the group's max_poll_interval to make it leave")
	}
}

// CheckAgainst: the workload has group members, and the one named.
func (sp *MemberStallParams) CheckAgainst(p string, st *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	checkMember(v, p, st, sp.Member, add)
}

func (sp *MemberStallParams) Build(st nemesis.Step) nemesis.Fault {
	return &memberFault{op: st.Fault, member: sp.Member, d: sp.Stall.Std()}
}

// refuseMemberTarget: a member fault names a member, not nodes.
func refuseMemberTarget(p string, st *nemesis.Step, add nemesis.AddFunc) {
	if st.Target != nil {
		add(p+".target", "only for node faults (a member fault names a member)")
	}
}

// memberFault is one client fault. member "" or "random" picks one at
// injection time: a running member for kill, leave and stall, a down one
// for start (member-start without a member starts every down member).
type memberFault struct {
	op     string
	member string
	d      time.Duration
}

func (f *memberFault) Name() string { return f.op }

func (f *memberFault) Spec() map[string]any {
	out := map[string]any{}
	if f.member != "" {
		out["member"] = f.member
	}
	if f.d > 0 {
		out["for"] = f.d.String()
	}
	return out
}

// memberState is the room's state of one run (nemesis.RoomState): the
// group members a member fault left without a client (killed or left),
// for member-start and the heals.
type memberState struct {
	mu   sync.Mutex
	down map[string]bool
}

func members(e *nemesis.Env) *memberState { return nemesis.RoomState[memberState](e) }

// set marks member m down or up again.
func (ms *memberState) set(m string, down bool) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.down == nil {
		ms.down = map[string]bool{}
	}
	if down {
		ms.down[m] = true
	} else {
		delete(ms.down, m)
	}
}

// among are the names of those of all that are down (or up: !down).
func (ms *memberState) among(all []string, down bool) []string {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	var out []string
	for _, m := range all {
		if ms.down[m] == down {
			out = append(out, m)
		}
	}
	return out
}

// pickMember resolves the member of a fault among the running (up) or
// down ones.
func pickMember(e *nemesis.Env, name string, up bool) (string, error) {
	cands := members(e).among(e.Members.Members(), !up)
	if name != "" && name != nemesis.RoleRandom {
		if !slices.Contains(e.Members.Members(), name) {
			return "", fmt.Errorf("no group member %q (members %v)", name, e.Members.Members())
		}
		return name, nil
	}
	if len(cands) == 0 {
		state := "running"
		if !up {
			state = "down"
		}
		return "", fmt.Errorf("no %s group member to choose from", state)
	}
	return cands[e.RandomIndex(len(cands))], nil
}

func (f *memberFault) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	if e.Members == nil {
		return nil, nil, errors.New("the workload has no consumer group (workload.group) for a member fault")
	}
	if f.op == histories.FMemberStart && (f.member == "" || f.member == nemesis.RoleRandom) {
		started, err := startMembers(ctx, e)
		return nil, map[string]any{"members": started}, err
	}
	m, err := pickMember(e, f.member, f.op != histories.FMemberStart)
	if err != nil {
		return nil, nil, err
	}
	d := map[string]any{"member": m}
	switch f.op {
	case histories.FMemberKill:
		err = e.Members.Kill(ctx, m)
	case histories.FMemberLeave:
		err = e.Members.Leave(ctx, m)
	case histories.FMemberStart:
		err = e.Members.Start(ctx, m)
	case histories.FMemberStall:
		d["for"] = f.d.String()
		err = e.Members.Stall(ctx, m, f.d)
	}
	if err == nil {
		switch f.op {
		case histories.FMemberKill, histories.FMemberLeave:
			members(e).set(m, true)
		case histories.FMemberStart:
			members(e).set(m, false)
		}
	}
	return nil, d, err
}

// Heal starts the member a kill or leave took down.
func (f *memberFault) Heal(ctx context.Context, e *nemesis.Env) error {
	if f.op != histories.FMemberKill && f.op != histories.FMemberLeave || e.Members == nil {
		return nil
	}
	_, err := startMembers(ctx, e)
	return err
}

// startMembers starts every member that is down, in name order.
func startMembers(ctx context.Context, e *nemesis.Env) ([]string, error) {
	if e.Members == nil {
		return nil, nil
	}
	down := members(e).among(e.Members.Members(), true)
	var errs []error
	var started []string
	for _, m := range down {
		if err := e.Members.Start(ctx, m); err != nil {
			errs = append(errs, fmt.Errorf("start member %s: %w", m, err))
			continue
		}
		started = append(started, m)
		members(e).set(m, false)
	}
	return started, errors.Join(errs...)
}

// checkMember refuses a member fault (or a heal member) without group
// members, or naming a member the workload does not have.
func checkMember(v *nemesis.ScenarioView, p string, st *nemesis.Step, member string, add nemesis.AddFunc) {
	if !v.Group && !v.Shares {
		add(p, "%s%s needs workload.group or workload.shares: the workload has no group members", st.Fault, st.Heal)
		return
	}
	if member != "" && member != nemesis.RoleRandom && !slices.Contains(v.Members, member) {
		add(p+".member", "%q: the group's members are %s (or random)", member, strings.Join(v.Members, ", "))
	}
}
