package workloads

import (
	"context"
	"fmt"
)

// Kind is a workload kind of a package of its own (workloads/shares: the
// share group) whose members run inside Workload.Run, beside the
// producers and consumers, and whose drain comes before the final read.
//
// It is an interface because the kind's package imports the seam (its
// settings, its driver's members, the recorder) and the seam must still
// run it in its own phases: open it once the producers are open and
// before the consumers, run it until the run's stop, hand its members to
// the member faults (Group), drain it before the final read. A kind the
// harness runs beside the workload on clients of its own (the metadata
// workload, workloads/metadata) needs none of this and is no Kind.
type Kind interface {
	// Open readies the kind before its members start (the share group:
	// the brokers' limits read, the group set to start at earliest). An
	// error ends Run before any op.
	Open(ctx context.Context, env KindEnv) error
	// Run runs the members until stop ends, then ends them; an error (a
	// recorder's: the history is broken) ends the run.
	Run(stop context.Context) error
	// Drain runs once, after the final heal, at the first FinalRead,
	// before the log is read: the members' last acks and the kind's own
	// read-back. It returns a recorder error only.
	Drain(ctx context.Context, env KindEnv) error
	// Members is the handle on the kind's members for the member faults
	// (MemberControl), nil if it has none.
	Members() GroupControl
}

// KindFor makes a kind for a configuration that asks for it (Defaults
// applied).
type KindFor func(cfg Config) Kind

// The workload sections a kind of its own runs: the name a kind package
// registers its KindFor under.
const (
	KindShares = "shares" // workload.shares: workloads/shares
)

// kinds are the registered kinds' makers by name (RegisterKind), as
// drivers are the registered drivers.
var kinds = map[string]KindFor{}

// RegisterKind makes f the maker of the kind that runs workload section
// name (KindShares). A kind package calls it at init, as a driver package
// registers its driver, so that the seam names no kind's package: a
// program that runs workloads links them all through workloads/kinds. A
// second maker of the same name, or an unknown name, panics: that is a
// program's mistake, not a scenario's.
func RegisterKind(name string, f KindFor) {
	if name != KindShares {
		panic(fmt.Sprintf("workloads: RegisterKind: no workload section %q", name))
	}
	if _, dup := kinds[name]; dup {
		panic(fmt.Sprintf("workloads: RegisterKind: kind %q registered twice", name))
	}
	kinds[name] = f
}

// kindsAsked are the sections of c that a kind of its own runs, in the
// order the Workload opens them.
func (c *Config) kindsAsked() []string {
	var out []string
	if c.Shares.Enabled() {
		out = append(out, KindShares)
	}
	return out
}

// makeKinds makes the kinds cfg asks for with the makers lookup finds (the
// registry's, in New), or says which one is not linked.
func makeKinds(cfg Config, lookup func(string) (KindFor, bool)) ([]Kind, error) {
	var out []Kind
	for _, name := range cfg.kindsAsked() {
		f, ok := lookup(name)
		if !ok {
			return nil, fmt.Errorf("workload.%s: run by a kind of its own that this program does not link (workloads/kinds)", name)
		}
		out = append(out, f(cfg))
	}
	return out, nil
}

// registeredKind is the registry's maker of kind name.
func registeredKind(name string) (KindFor, bool) {
	f, ok := kinds[name]
	return f, ok
}

// KindEnv is what the Workload lends its kinds.
type KindEnv struct {
	Config Config
	Driver Driver
	// Bootstrap is the clients' (through the request-fault proxy when
	// the harness routes them); Evidence is the brokers' own, for what a
	// kind reads back as evidence (ReadEvidenceFrom).
	Bootstrap, Evidence []string
	Recorder            Recorder
	// Polled counts a poll that delivered n records in Stats (Polls,
	// PolledRecords).
	Polled func(n int)
}

// kindEnv is the KindEnv of w.
func (w *Workload) kindEnv() KindEnv {
	return KindEnv{Config: w.cfg, Driver: w.drv, Bootstrap: w.bootstrap, Evidence: w.evidenceBootstrap(),
		Recorder: w.rec, Polled: func(n int) {
			w.c.polls.Add(1)
			w.c.polledRecords.Add(int64(n))
		}}
}
