// Package domain is the seam between package checker and the analyzers
// it is composed of, as Jepsen composes checkers: an analyzer in a
// package of its own (logorder, retention, linearize, txncheck,
// groupcheck, share, metadata) implements Analyzer, reads the decoded
// history (package model) and what the domains share (package judge,
// Facts), writes its entries
// into its own part of the Result's anomalies and returns the rest of what
// it found (Findings). Package checker registers it with one line and
// reads its declarations (anomaly.Domain) for the verdict, so no rule is
// restated outside the domain that owns it.
//
// It imports only the model, the shared judgements and the anomaly
// vocabulary, so that an analyzer never imports package checker.
package domain

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/kchaos/kchaos/checker/anomaly"
	"github.com/kchaos/kchaos/checker/judge"
	"github.com/kchaos/kchaos/checker/model"
)

// Analyzer is one domain of the checker. E is its part of the anomalies
// and its declaration: a pointer to a struct of entry lists, each tagged
// with its kind's name (its JSON name), unit and rule (New reads them); package
// checker embeds the struct in its Anomalies, so the JSON shape is the
// contract's, and counts the lists with Count. F is what else it found.
// New makes one.
type Analyzer[E any, F Findings] interface {
	anomaly.Domain
	// Analyze finds the domain's anomalies in in and appends them to out.
	// It reads in and writes only out and what it returns, so the domains'
	// order changes none of their findings, except where Facts says it
	// reads another domain's (Facts.Reused).
	Analyze(in *Input, out E) F
}

// New makes a domain's Analyzer of its name and its analyze function, so
// that a domain's package writes only what is its own. Its kinds are
// those E declares (declaredKinds); a declaration that cannot be right is a
// programming error, and New panics at the package's start.
func New[E any, F Findings](name string, analyze func(in *Input, out E) F) Analyzer[E, F] {
	kinds, err := declaredKinds(reflect.TypeFor[E]())
	if err != nil {
		panic(fmt.Sprintf("domain %s: %v", name, err))
	}
	return declared[E, F]{name, kinds, analyze}
}

// KindsOf are the kinds E declares, as New reads them: for a domain's
// own code that asks whether one of its kinds counts (Kind.Counts)
// without naming the kind's rule a second time.
func KindsOf[E any]() []anomaly.Kind {
	kinds, err := declaredKinds(reflect.TypeFor[E]())
	if err != nil {
		panic(fmt.Sprintf("entries %v: %v", reflect.TypeFor[E](), err))
	}
	return kinds
}

// declaredKinds are the anomaly kinds that a struct of entry lists (or a pointer
// to one) declares, in its fields' order: each list's JSON name is the
// kind's name, its tags unit and rule (anomaly.Rule's words, ParseRule)
// are the kind's, so that a kind is declared once, beside its list.
func declaredKinds(t reflect.Type) ([]anomaly.Kind, error) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("entries: want a struct of entry lists, got %v", t)
	}
	var out []anomaly.Kind
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		rule, err := anomaly.ParseRule(f.Tag.Get("rule"))
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %v", f.Name, name, err)
		}
		out = append(out, anomaly.Kind{Name: name, Unit: f.Tag.Get("unit"), Rule: rule})
	}
	return out, anomaly.Check(out)
}

// declared is the Analyzer New makes.
type declared[E any, F Findings] struct {
	name    string
	kinds   []anomaly.Kind
	analyze func(in *Input, out E) F
}

func (d declared[E, F]) Name() string               { return d.name }
func (d declared[E, F]) Anomalies() []anomaly.Kind  { return d.kinds }
func (d declared[E, F]) Analyze(in *Input, out E) F { return d.analyze(in, out) }

// Input is what every analyzer reads.
type Input struct {
	History *model.History
	// Places says where the cluster stood at a time, and the faults
	// around it (every entry's Where and FaultRef).
	Places *judge.Places
	// Finals is the judgement of the completed final reads (every one is
	// evidence): whether one should hold a value, and the first reads
	// that prove a write.
	Finals *judge.Finals
	// Acked is, per partition, its sends acked with an offset, in send
	// order (judge.Acked).
	Acked   [][]int32
	Options anomaly.Options
	// TxnTimeout is the transactional producers' transaction.timeout.ms
	// (0: unknown), for the transactions domain's txn-hanging.
	TxnTimeout time.Duration
	// TopicConfigs are the topic's configs as run.json recorded them
	// (applied, defaults included; nil for a bare history), for the
	// retention domain.
	TopicConfigs map[string]string
	// Porcupine steers the linearizability domain's search.
	Porcupine Porcupine
	// Decoded is what package checker decoded for this domain alone while
	// the history streamed, in the domain's own type (the share ops, the
	// metadata events); nil for a domain whose tables are in History.
	Decoded any
	// Facts are what the checker established across domains.
	Facts Facts
}

// Porcupine steers the linearizability search (package checker's Options
// set it; package linearize reads it as its Config).
type Porcupine struct {
	// Skip leaves the search out: the result says "skipped".
	Skip bool
	// Timeout bounds the whole search (0: linearize.DefaultPorcupineTimeout);
	// a search cut short is "unknown", never a pass.
	Timeout time.Duration
	// Window is the offsets per porcupine partition of a large history
	// (0: linearize.DefaultWindow).
	Window int64
	// VisualizeDir, if set, receives porcupine's HTML visualization of each
	// topic-partition that fails (only those: checker.Options.VisualizeDir);
	// Prefix starts their file names.
	VisualizeDir, Prefix string
	// Loose leaves open-ended appends untightened (see package logmodel):
	// a test shows that tightening changes no verdict.
	Loose bool
}

// Facts are the judgements package checker makes across domains, for an
// analyzer that needs one that another domain owns. (Who wrote a record,
// and when, are questions of the History: model.History.Writer,
// CommittedVisible, WriteInvoked.)
type Facts interface {
	// Reused returns the offsets of tp that held more than one value
	// (offset-reuse, the log domain's; it runs first), in order.
	Reused(tp int32) []int64
}

// Findings is what an analyzer found beyond its entries: explanations and
// the domain's reasons.
type Findings interface {
	// Explanations group the domain's entries in words (results.json's
	// explanations, in the registry's order).
	Explanations() []judge.Explanation
	// Invalid is the reason for n entries of a kind that counts ("": none
	// of them does, as for a PerEntry kind whose entries all wait).
	Invalid(k anomaly.Kind, n int) string
	// Uncounted is the reason for those of n entries of kind k that do
	// not count: a note (IfIdempotent, IfExactlyOnce, Never) or a cause of
	// "unknown" (PerEntry, Unjudged); "" for none.
	Uncounted(k anomaly.Kind, n int) string
	// Notes and Unknowns are the domain's reasons beyond its kinds.
	Notes() []string
	Unknowns() []string
	// Unexercised says why the domain's checks held vacuously: its
	// workload ran and Kafka acknowledged it nothing (a group delivered
	// nothing and committed nothing). Each is a cause of "unknown" too,
	// and a suite holds no expectation against such a run.
	Unexercised() []string
}

// Base gives Findings its defaults: the explanations in Expl, the
// generic reasons, no reasons beyond the kinds. A domain's findings embed
// it.
type Base struct{ Expl []judge.Explanation }

func (b Base) Explanations() []judge.Explanation { return b.Expl }

// Invalid says "name: n", with the producer's setting for IfIdempotent.
func (Base) Invalid(k anomaly.Kind, n int) string { return Invalid(k, n) }

func (Base) Uncounted(anomaly.Kind, int) string { return "" }
func (Base) Notes() []string                    { return nil }
func (Base) Unknowns() []string                 { return nil }
func (Base) Unexercised() []string              { return nil }

// Invalid is the generic reason for n entries of kind k that count.
func Invalid(k anomaly.Kind, n int) string {
	if k.Rule == anomaly.IfIdempotent {
		return fmt.Sprintf("%s: %d (the producer was idempotent)", k.Name, n)
	}
	return fmt.Sprintf("%s: %d", k.Name, n)
}

// Count is the number of entries of the kind named name in x, a pointer
// to a struct of entry lists (Analyzer's E): the list whose results.json name
// (its JSON tag) is name, so that the name is written once, where the
// list is.
func Count(x any, name string) int {
	v := reflect.ValueOf(x).Elem()
	for i := range v.NumField() {
		if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); tag == name {
			return v.Field(i).Len()
		}
	}
	return 0
}
