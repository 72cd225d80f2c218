package requests

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/cluster"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/kchaos/kchaos/nemesis/proxy"
)

// Params are a request fault's. Which requests: API names as Kafka
// spells them (required: a fault on every request is a partition, which
// kchaos has), the clients by role (workloads' client roles; default
// every client through the proxy) or one client by index within its role,
// and the brokers by the step's usual target (default any). How many: the
// first N selected, or each with a probability. For how long: until a heal,
// or `for:`. What: each kind's action, with its delay or error code.
type Params struct {
	API         []string         `yaml:"api,omitempty"`
	Clients     string           `yaml:"clients,omitempty"`
	Client      *int             `yaml:"client,omitempty"`
	First       int              `yaml:"first,omitempty"`
	Probability float64          `yaml:"probability,omitempty"`
	For         nemesis.Duration `yaml:"for,omitempty"`
	// Within bounds the proof's wait for a first action (default
	// DefaultWithin).
	Within nemesis.Duration `yaml:"within,omitempty"`
	// Delay is a delay's length and a duplicate's gap.
	Delay nemesis.Duration `yaml:"delay,omitempty"`
	// Response makes a delay hold the response rather than the request.
	Response bool `yaml:"response,omitempty"`
	// Error is the Kafka error an error-response or rewrite-error gives,
	// by Kafka's name (NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT, ...).
	Error string `yaml:"error,omitempty"`
}

// defaultWithin is how long a request fault's proof waits for the
// rule's first action.
const defaultWithin = 30 * time.Second

func (rp *Params) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	a := proxy.ActionKind(st.Fault)
	if len(rp.API) == 0 {
		add(p+".api", "%s needs api: the Kafka APIs it acts on, by Kafka's names (e.g. [EndTxn], [Produce, Fetch])", a)
	}
	for i, name := range rp.API {
		k, ok := proxy.APIKeyByName(name)
		switch {
		case !ok:
			add(fmt.Sprintf("%s.api[%d]", p, i), "%q: not a Kafka API name (e.g. Produce, EndTxn, OffsetCommit, ShareAcknowledge)", name)
		case a == proxy.ErrorResponse && !proxy.ErrorResponseSupported(k):
			add(fmt.Sprintf("%s.api[%d]", p, i), "%s: error-response cannot answer it (use rewrite-error: forwarded, then the error replaced)", name)
		}
	}
	if rp.Client != nil && (*rp.Client < 0 || rp.Clients == "") {
		add(p+".client", "%d: a client index within a role (clients: producer, ...), 0 or more", *rp.Client)
	}
	if rp.First < 0 {
		add(p+".first", "%d: want 0 (every selected request) or more", rp.First)
	}
	if rp.Probability < 0 || rp.Probability > 1 || rp.Probability != rp.Probability {
		add(p+".probability", "%v: want a number in [0, 1] (0: always)", rp.Probability)
	}
	if rp.For < 0 || rp.Within < 0 || rp.Delay < 0 {
		add(p, "for, within and delay must not be negative")
	}
	needsDelay := a == proxy.Delay || a == proxy.DuplicateRequest
	switch {
	case needsDelay && rp.Delay == 0 && a == proxy.Delay:
		add(p+".delay", "%s needs delay: how long to hold the request (or, with response: true, its response)", a)
	case !needsDelay && rp.Delay != 0:
		add(p+".delay", "only for delay and duplicate-request")
	}
	if rp.Response && a != proxy.Delay {
		add(p+".response", "only for delay")
	}
	needsError := a == proxy.ErrorResponse || a == proxy.RewriteError
	if code, ok := proxy.ErrorCodeByName(rp.Error); needsError && (!ok || code == 0) {
		add(p+".error", "%q: %s needs error: a Kafka error name (NOT_LEADER_OR_FOLLOWER, COORDINATOR_LOAD_IN_PROGRESS, REQUEST_TIMED_OUT, CONCURRENT_TRANSACTIONS, ...)", rp.Error, a)
	} else if !needsError && rp.Error != "" {
		add(p+".error", "only for error-response and rewrite-error")
	}
	if st.Target != nil && st.Target.Partition < 0 && st.Target.Role == "" && len(st.Target.Nodes) == 0 {
		add(p+".target", "a target names brokers (a role or nodes), or leave it out for any broker")
	}
}

// CheckAgainst: the clients' role must be one the workload has.
func (rp *Params) CheckAgainst(p string, st *nemesis.Step, v *nemesis.ScenarioView, add nemesis.AddFunc) {
	if rp.Clients == replicaRole {
		checkReplica(p, rp.Client, st.Target, v, add) // replica.go
		return
	}
	if rp.Clients == "" || rp.Clients == "all" {
		return
	}
	if _, ok := v.ClientRoles[rp.Clients]; !ok {
		add(p+".clients", "%q: the workload's client roles are %s (or all, or replica: the brokers' own requests)", rp.Clients, strings.Join(slices.Sorted(maps.Keys(v.ClientRoles)), ", "))
	}
}

// Needs: a fault on the brokers' own requests needs them routed
// (replica.go).
func (rp *Params) Needs() cluster.Caps {
	if rp.Clients == replicaRole {
		return cluster.NewCaps(cluster.CapInterBrokerRoute)
	}
	return 0
}
