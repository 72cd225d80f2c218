package nemesis

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/cluster"
)

// Params is a fault kind's own parameters: the fields of its step besides
// the ones every step shares (fault, target). Each kind's type carries
// yaml tags for its fields, which are the scenario format's keys.
type Params interface {
	// Validate reports the parameters' problems (and the target's, whose
	// rules are the fault's) under the step's path p.
	Validate(p string, st *Step, add AddFunc)
	// Build makes the fault the step injects (st validated).
	Build(st Step) Fault
}

// ConfigChanger is implemented by parameters that change topic configs
// live (set-config, nemesis/quorum): the keys and values a step sets (a
// nil value deletes the key). The harness reads them here without naming
// the room: it checks the values as Kafka reads them, sees a step that
// allows an unclean election, and refuses an audit story that has one.
type ConfigChanger interface{ ConfigChanges() map[string]*string }

// Upgrader is implemented by parameters that move nodes to another Kafka
// release (upgrade, nemesis/quorum): the release a step names, as the
// scenario writes it ("4.4.x"), for the programs that list the releases a
// scenario needs (kchaos versions).
type Upgrader interface{ UpgradeVersion() string }

// ParamNeeds is implemented by parameters that need more of the backend
// than their kind always does (netem's clients links need the client
// side: nemesis/network).
type ParamNeeds interface{ Needs() cluster.Caps }

// registry is every registered fault kind, in the order errors list them
// and histories describes them: the rooms' as they Register at init
// (nemesis/clients, nemesis/disk, nemesis/network, nemesis/process,
// nemesis/quorum, then nemesis/requests: Go initializes the rooms
// nemesis/kinds links in import-path order). The seam has no kinds of
// its own. Adding a fault: a file with its Kind, parameter type and Fault
// in its room, and a line on the room's list; then go generate ./nemesis,
// which copies the kinds' history facts for the readers that do not link
// the nemesis: histories/faults_kinds.go.
var registry []Kind

// Kinds returns the registered fault kinds, in registry order.
func Kinds() []Kind { return slices.Clone(registry) }

// LookupKind is the registered fault kind name.
func LookupKind(name string) (Kind, bool) {
	i := slices.IndexFunc(registry, func(k Kind) bool { return k.Name == name })
	if i < 0 {
		return Kind{}, false
	}
	return registry[i], true
}

// leavesState is what fault kind name leaves behind that a heal does not
// undo (Kind.LeavesState); an unknown name leaves unknown state, and says
// so.
func leavesState(name string) string {
	k, ok := LookupKind(name)
	if !ok {
		return "unknown fault " + name
	}
	return k.LeavesState
}

// faultNames are the registered faults' names.
func faultNames() []string {
	out := make([]string, len(registry))
	for i, k := range registry {
		out[i] = k.Name
	}
	return out
}

// paramKeys are the YAML keys of a parameter type (its fields' tags).
func paramKeys(p Params) []string {
	t := reflect.TypeOf(p).Elem()
	var out []string
	for i := range t.NumField() {
		if k, _ := yamlKey(t.Field(i)); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// takes reports whether fault kind k has a parameter key.
func (k Kind) takes(key string) bool { return slices.Contains(paramKeys(k.New()), key) }

// faultsTaking names the faults that have a parameter key, for "only
// for" errors: "fault disk-slow", "faults disk-fail, disk-full and
// disk-slow".
func faultsTaking(key string) string {
	var names []string
	for _, k := range registry {
		if k.takes(key) {
			names = append(names, k.Name)
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "fault " + names[0]
	}
	return "faults " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// params is the step's parameters: its own, or its kind's zero value.
func (st *Step) params() (Kind, Params, error) {
	k, ok := LookupKind(st.Fault)
	if !ok {
		return Kind{}, nil, fmt.Errorf("unknown fault %q", st.Fault)
	}
	if st.Params == nil {
		return k, k.New(), nil
	}
	if want := reflect.TypeOf(k.New()); reflect.TypeOf(st.Params) != want {
		return k, nil, fmt.Errorf("fault %s takes parameters %s, not %T", st.Fault, want, st.Params)
	}
	return k, st.Params, nil
}

// Needs is the backend capabilities a fault step needs: its kind's, and
// what its parameters add.
func (st *Step) Needs() cluster.Caps {
	k, p, err := st.params()
	if err != nil {
		return 0
	}
	needs := k.Needs
	if pn, ok := p.(ParamNeeds); ok {
		needs |= pn.Needs()
	}
	return needs
}

// NewFault builds the fault a scripted step names, through its kind's
// parameters.
func NewFault(st Step) (Fault, error) {
	_, p, err := st.params()
	if err != nil {
		return nil, err
	}
	return p.Build(st), nil
}

// CheckBackend reports every fault of s that backend (with capabilities
// caps) cannot apply, each under its step's path, so that a scenario is
// refused before any cluster starts rather than when the fault fires.
func (s *Schedule) CheckBackend(backend string, caps cluster.Caps) error {
	var errs []error
	check := func(path, what string, needs cluster.Caps) {
		for _, c := range caps.Missing(needs).List() {
			errs = append(errs, fmt.Errorf("%s: %s needs capability %q, which backend %s does not have", path, what, c, backend))
		}
	}
	for i := range s.Steps {
		if st := &s.Steps[i]; st.Fault != "" {
			check(fmt.Sprintf("nemesis.steps[%d].fault", i), st.Fault, st.Needs())
		}
	}
	if len(s.Bootstrap) > 0 {
		check("nemesis.bootstrap", "a schedule while the cluster starts", cluster.NewCaps(cluster.CapBootstrap))
	}
	for i := range s.Bootstrap {
		if st := &s.Bootstrap[i]; st.Fault != "" {
			check(fmt.Sprintf("nemesis.bootstrap[%d].fault", i), st.Fault, st.Needs())
		}
	}
	if r := s.Random; r != nil {
		for i, name := range r.Faults {
			if _, _, ok := randomFault(name); ok {
				st := planStep(newPRNG(r.Seed), *r, name, []int32{0})
				check(fmt.Sprintf("nemesis.random.faults[%d]", i), name, st.Needs())
			}
		}
	}
	return errors.Join(errs...)
}

// HasRequestFaults says whether the schedule may inject a request fault
// (Kind.Requests: a scripted step, or a random mix naming one): the run
// then puts the request proxy on the clients' path.
func (s *Schedule) HasRequestFaults() bool {
	for _, st := range s.Steps {
		if k, ok := LookupKind(st.Fault); ok && k.Requests {
			return true
		}
	}
	if s.Random != nil {
		for _, f := range s.Random.Faults {
			if k, ok := LookupKind(f); ok && k.Requests {
				return true
			}
		}
	}
	return false
}

// RoutesInterBroker says whether a step of s acts on the brokers' own
// requests (its parameters need cluster.CapInterBrokerRoute: a request
// fault with clients: replica): its cluster must start with them routed.
func (s *Schedule) RoutesInterBroker() bool {
	for i := range s.Steps {
		if s.Steps[i].Needs().Has(cluster.NewCaps(cluster.CapInterBrokerRoute)) {
			return true
		}
	}
	return false
}

// LinkFault is the path and kind of the schedule's first fault that acts
// on the nodes' links by their addresses (its kind or parameters need
// partition or netem), or "".
func (s *Schedule) LinkFault() string {
	links := cluster.NewCaps(cluster.CapPartition, cluster.CapNetem)
	for i := range s.Steps {
		if st := &s.Steps[i]; st.Fault != "" && st.Needs()&links != 0 {
			return fmt.Sprintf("nemesis.steps[%d] (%s)", i, st.Fault)
		}
	}
	if r := s.Random; r != nil {
		for i, name := range r.Faults {
			if _, _, ok := randomFault(name); ok {
				st := planStep(newPRNG(r.Seed), *r, name, []int32{0})
				if st.Needs()&links != 0 {
					return fmt.Sprintf("nemesis.random.faults[%d] (%s)", i, name)
				}
			}
		}
	}
	return ""
}
