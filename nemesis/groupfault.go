package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kchaos/kchaos/histories"
)

// Client faults: they act on the workload's consumer-group members, not
// on the cluster's nodes (histories/faults.go: member-kill, member-leave,
// member-start, member-stall). The workload owns the clients; the nemesis
// reaches them through Members, which the harness hands over
// (workloads.GroupControl implements it). They are recorded like broker
// faults: an invoke and an ok or info on process -1, the member in
// value.details.member.

// The member faults act on the workload's clients: no backend capability.
var (
	memberKillKind = memberKind(histories.FMemberKill, Kind{Heal: memberHeal,
		UndoneBy: []string{histories.FMemberStart}, Color: "#b5651d"})
	memberLeaveKind = memberKind(histories.FMemberLeave, Kind{Heal: memberHeal,
		UndoneBy: []string{histories.FMemberStart}, Color: "#c9a227"})
	memberStartKind = memberKind(histories.FMemberStart, Kind{Heal: UndoOp, Color: histories.OtherFaultColor})
	// A stall ends by itself (after its for:).
	memberStallKind = memberKind(histories.FMemberStall, Kind{Heal: Instant, Color: "#9c7a3c",
		New: func() Params { return &MemberStallParams{} }})
)

// memberKind completes k as a member fault: on kchaos's own clients, so it
// can neither lose what Kafka acked nor move a leader; never drawn (a
// random schedule aims at brokers); its op's outcome is its proof.
func memberKind(name string, k Kind) Kind {
	k.Name, k.OnClients, k.LosesAcked, k.MovesLeaders, k.Draw = name, true, No, No, NotDrawn
	k.Proof = "acts on the workload's own client: the client's answer is its proof"
	if k.New == nil {
		k.New = func() Params { return &MemberParams{} }
	}
	return k
}

// memberHeal starts every group member that a member-kill or member-leave
// left without a client; last in a heal all.
var memberHeal = &HealKind{Name: histories.HealMember, Rank: 6, Heal: func(ctx context.Context, e *Env, d map[string]any) ([]int32, error) {
	started, err := e.startMembers(ctx)
	if len(started) > 0 {
		d["members_started"] = started
	}
	return nil, err
}, Check: func(p string, st *Step, v *ScenarioView, add AddFunc) { v.checkMember(p, st, "", add) }}

// MemberParams are a member fault's: the member (member-0, ...), or
// random (the default).
type MemberParams struct {
	Member string `yaml:"member,omitempty"`
}

func (*MemberParams) Validate(p string, st *Step, add AddFunc) { refuseMemberTarget(p, st, add) }

// CheckAgainst: the workload has group members, and the one named.
func (mp *MemberParams) CheckAgainst(p string, st *Step, v *ScenarioView, add AddFunc) {
	v.checkMember(p, st, mp.Member, add)
}

func (mp *MemberParams) Build(st Step) Fault { return &memberFault{op: st.Fault, member: mp.Member} }

// MemberStallParams are a member-stall's: the member, and how long it is
// stopped.
type MemberStallParams struct {
	Member string `yaml:"member,omitempty"`
	// Stall is how long the member stops polling: longer than the group's
	// max_poll_interval makes it leave.
	Stall Duration `yaml:"for,omitempty"`
}

func (sp *MemberStallParams) Validate(p string, st *Step, add AddFunc) {
	refuseMemberTarget(p, st, add)
	if sp.Stall <= 0 {
		add(p+".for", "member-stall needs a duration (for: 15s), longer than the group's max_poll_interval to make it leave")
	}
}

// CheckAgainst: the workload has group members, and the one named.
func (sp *MemberStallParams) CheckAgainst(p string, st *Step, v *ScenarioView, add AddFunc) {
	v.checkMember(p, st, sp.Member, add)
}

func (sp *MemberStallParams) Build(st Step) Fault {
	return &memberFault{op: st.Fault, member: sp.Member, d: sp.Stall.Std()}
}

// refuseMemberTarget: a member fault names a member, not nodes.
func refuseMemberTarget(p string, st *Step, add AddFunc) {
	if st.Target != nil {
		add(p+".target", "only for node faults (a member fault names a member)")
	}
}

// Members is the workload's group members as the faults act on them.
type Members interface {
	Members() []string
	Kill(ctx context.Context, member string) error
	Start(ctx context.Context, member string) error
	Leave(ctx context.Context, member string) error
	Stall(ctx context.Context, member string, d time.Duration) error
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

// pick resolves the member of a fault among the running (up) or down ones.
func (e *Env) pickMember(name string, up bool) (string, error) {
	e.mu.Lock()
	var cands []string
	for _, m := range e.Members.Members() {
		if e.downMembers[m] != up {
			cands = append(cands, m)
		}
	}
	e.mu.Unlock()
	if name != "" && name != RoleRandom {
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
	return cands[e.rand().intn(len(cands))], nil
}

func (f *memberFault) Inject(ctx context.Context, e *Env) ([]int32, map[string]any, error) {
	if e.Members == nil {
		return nil, nil, errors.New("the workload has no consumer group (workload.group) for a member fault")
	}
	if f.op == histories.FMemberStart && (f.member == "" || f.member == RoleRandom) {
		started, err := e.startMembers(ctx)
		return nil, map[string]any{"members": started}, err
	}
	m, err := e.pickMember(f.member, f.op != histories.FMemberStart)
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
		e.mu.Lock()
		if e.downMembers == nil {
			e.downMembers = map[string]bool{}
		}
		switch f.op {
		case histories.FMemberKill, histories.FMemberLeave:
			e.downMembers[m] = true
		case histories.FMemberStart:
			delete(e.downMembers, m)
		}
		e.mu.Unlock()
	}
	return nil, d, err
}

// Heal starts the member a kill or leave took down.
func (f *memberFault) Heal(ctx context.Context, e *Env) error {
	if f.op != histories.FMemberKill && f.op != histories.FMemberLeave || e.Members == nil {
		return nil
	}
	_, err := e.startMembers(ctx)
	return err
}

// startMembers starts every member that is down, in name order.
func (e *Env) startMembers(ctx context.Context) ([]string, error) {
	if e.Members == nil {
		return nil, nil
	}
	e.mu.Lock()
	var down []string
	for _, m := range e.Members.Members() {
		if e.downMembers[m] {
			down = append(down, m)
		}
	}
	e.mu.Unlock()
	var errs []error
	var started []string
	for _, m := range down {
		if err := e.Members.Start(ctx, m); err != nil {
			errs = append(errs, fmt.Errorf("start member %s: %w", m, err))
			continue
		}
		started = append(started, m)
		e.mu.Lock()
		delete(e.downMembers, m)
		e.mu.Unlock()
	}
	return started, errors.Join(errs...)
}
