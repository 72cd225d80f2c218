package quorum

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/internal/ctxsleep"
	"github.com/kchaos/kchaos/nemesis"
)

// QuorumAdmin is the part of the admin API that changes the KRaft voter
// set (KIP-853); *admin.Controllers implements it by asking the leading
// controller on its own listener, *admin.Client through any broker
// (cluster/admin/reconfig.go says where the requests go, why the
// controllers are preferred, and what Kafka answers). Faults type-assert
// Env.Quorum, then Env.Admin, for it, so that fakes without it still
// serve the rest.
type QuorumAdmin interface {
	QuorumMembers(ctx context.Context) (admin.Members, error)
	AddRaftVoter(ctx context.Context, id int32, dir, host string, port uint16) (admin.Answer, error)
	RemoveRaftVoter(ctx context.Context, id int32, dir string) (admin.Answer, error)
}

var (
	_ QuorumAdmin = (*admin.Client)(nil)
	_ QuorumAdmin = (*admin.Controllers)(nil)
)

// Bounds of a reconfiguration step.
const (
	// reconfigWait bounds a whole add-controller or remove-controller
	// (a step's timeout overrides it): a node's start and catching up as
	// an observer, Kafka's answers, and the voter set read back.
	reconfigWait = 90 * time.Second
	// reconfigAttempt bounds one AddRaftVoter or RemoveRaftVoter: Kafka
	// may hold it until the new voter set commits (the request's 15 s).
	reconfigAttempt = 25 * time.Second
	// reconfigRetry is the pause between attempts that Kafka answered
	// with a retriable error (REQUEST_TIMED_OUT while the new voter
	// catches up or a change is uncommitted).
	reconfigRetry = time.Second
)

// reconfigStart is a reconfiguration's first read: the admin client that
// can change the voter set (the controllers' own, where the run has one),
// and the quorum before the change.
func reconfigStart(ctx context.Context, e *nemesis.Env) (QuorumAdmin, admin.Members, error) {
	qa, ok := e.Quorum.(QuorumAdmin)
	if !ok {
		qa, ok = e.Admin.(QuorumAdmin)
	}
	if !ok {
		return nil, admin.Members{}, errors.New("the admin client cannot change the KRaft voter set")
	}
	before, err := members(ctx, e, qa)
	return qa, before, err
}

// members reads the voter set and observers (retrying as every admin read).
func members(ctx context.Context, e *nemesis.Env, qa QuorumAdmin) (admin.Members, error) {
	var m admin.Members
	err := e.AdminCall(ctx, func(ctx context.Context) (err error) {
		m, err = qa.QuorumMembers(ctx)
		return err
	})
	if err != nil {
		return m, fmt.Errorf("describe quorum: %w", err)
	}
	return m, nil
}

// waitMembers polls the quorum until holds does, within ctx, and returns
// the last answer read.
func waitMembers(ctx context.Context, qa QuorumAdmin, what string, holds func(admin.Members) bool) (admin.Members, error) {
	var last admin.Members
	var lastErr error
	for {
		m, err := qa.QuorumMembers(ctx)
		if err == nil {
			last = m
			if holds(m) {
				return m, nil
			}
		} else {
			lastErr = err
		}
		if ctxsleep.Sleep(ctx, nemesis.PollInterval) != nil {
			return last, fmt.Errorf("%s: not read back in time (voters %v, observers %v, last error %v)",
				what, last.VoterIDs(), memberIDs(last.Observers), lastErr)
		}
	}
}

func memberIDs(ms []admin.Member) []int32 {
	out := make([]int32, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// reconfigure sends one reconfiguration request until Kafka accepts it,
// or until the voter set shows done (Kafka may have applied a change whose
// answer timed out, or auto-join may have made it), retrying on
// retriable answers and on no answer; every answer is returned for the
// history. A final refusal is an error that quotes Kafka.
func reconfigure(ctx context.Context, e *nemesis.Env, qa QuorumAdmin, what string, send func(context.Context) (admin.Answer, error),
	done func(admin.Members) bool) ([]admin.Answer, error) {
	var answers []admin.Answer
	for {
		actx, cancel := context.WithTimeout(ctx, reconfigAttempt)
		a, err := send(actx)
		cancel()
		if err != nil {
			a = admin.Answer{Code: "no answer", Message: err.Error(), Retriable: true}
		}
		answers = append(answers, a)
		if a.OK() {
			return answers, nil
		}
		if m, err := qa.QuorumMembers(ctx); err == nil && done(m) {
			return answers, nil
		}
		if !a.Retriable {
			return answers, fmt.Errorf("%s: Kafka answered %s: %s", what, a.Code, a.Message)
		}
		e.Logger().Info("nemesis: reconfiguration not done yet; retrying", "what", what, "answer", a.Code, "message", a.Message)
		if ctxsleep.Sleep(ctx, reconfigRetry) != nil {
			return answers, fmt.Errorf("%s: not done in time; Kafka's last answer %s: %s", what, a.Code, a.Message)
		}
	}
}
