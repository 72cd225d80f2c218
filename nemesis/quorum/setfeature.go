package quorum

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/ctxsleep"
	"github.com/kchaos/kchaos/nemesis"
	"github.com/twmb/franz-go/pkg/kerr"
)

// setFeatureKind sets feature levels through the admin API: every backend
// can.
var setFeatureKind = nemesis.Kind{Name: histories.FSetFeature, New: func() nemesis.Params { return &SetFeatureParams{} },
	LeavesState: "changes the cluster's finalized feature levels",
	Heal:        nemesis.Instant, Color: "#1f9e9e", LosesAcked: nemesis.No, MovesLeaders: nemesis.No, Draw: nemesis.NotDrawn, Proof: nemesis.AdminProof}

// SetFeatureParams are a set-feature's.
type SetFeatureParams struct {
	// Feature is the finalized feature levels to set, e.g.
	// {eligible.leader.replicas.version: 1}.
	Feature map[string]int16 `yaml:"feature,omitempty"`
	// Finalize raises metadata.version to the highest level the brokers
	// support, as an upgrade's finalize does (instead of Feature).
	Finalize bool `yaml:"finalize,omitempty"`
	// Refused says what Kafka's refusal of a level does: "fail" (the
	// default) fails the step, as any fault that could not be applied,
	// and ends the schedule; "record" completes the op `fail` with
	// Kafka's answer in details.refused and goes on, so that a story's
	// outcome can be the refusal (features_refused).
	Refused string `yaml:"refused,omitempty"`
}

// Refused's values.
const (
	refusedFail   = "fail"
	refusedRecord = "record"
)

// refusalCodes are Kafka's answers that refuse a level outright: the
// controller judged it and changed nothing (FeatureControlManager).
var refusalCodes = []string{"INVALID_UPDATE_VERSION", "FEATURE_UPDATE_FAILED"}

func (fp *SetFeatureParams) Validate(p string, st *nemesis.Step, add nemesis.AddFunc) {
	switch {
	case fp.Finalize && len(fp.Feature) > 0:
		add(p+".finalize", "set-feature takes feature or finalize, not both")
	case !fp.Finalize && len(fp.Feature) == 0:
		add(p+".feature", "set-feature needs at least one feature, e.g. {eligible.leader.replicas.version: 1}, or finalize: true")
	}
	for k, v := range fp.Feature {
		if strings.TrimSpace(k) == "" {
			add(p+".feature", "empty feature name")
		}
		if v < 0 {
			add(p+".feature."+k, "level %d: must not be negative", v)
		}
	}
	if fp.Refused != "" && fp.Refused != refusedFail && fp.Refused != refusedRecord {
		add(p+".refused", "%q: want %s (the default: a refusal fails the step) or %s (the op completes fail and the story goes on)",
			fp.Refused, refusedFail, refusedRecord)
	}
	if st.Target != nil {
		nemesis.ValidateTarget(p+".target", st.Target, false, false, add)
	}
}

func (fp *SetFeatureParams) Build(nemesis.Step) nemesis.Fault {
	return &setFeature{features: fp.Feature, finalize: fp.Finalize, record: fp.Refused == refusedRecord}
}

// FeatureAdmin is the part of the admin API that reads and sets finalized
// features (KIP-584); *admin.Client implements it. Faults type-assert
// Env.Admin for it, so that fakes without features still serve the rest.
type FeatureAdmin interface {
	FinalizedFeatures(ctx context.Context) (map[string]int16, error)
	SupportedFeatures(ctx context.Context) (map[string]int16, error)
	SetFeature(ctx context.Context, name string, level int16, downgrade bool) error
}

var _ FeatureAdmin = (*admin.Client)(nil)

// featureWait bounds the wait for a feature change to be read back.
const featureWait = 30 * time.Second

// setFeature sets finalized feature levels live (UpdateFeatures, as
// kafka-features upgrade does), or, with finalize, raises
// metadata.version to the highest level the nodes support. The op
// records the finalized levels before and after: the evidence of what is
// on.
type setFeature struct {
	features map[string]int16
	finalize bool
	record   bool // a refusal completes the op fail (Refusal), not info
}

func (f *setFeature) Name() string { return histories.FSetFeature }

func (f *setFeature) Spec() map[string]any {
	spec := map[string]any{"feature": f.features}
	if f.finalize {
		spec = map[string]any{"finalize": admin.FeatureMetadataVersion}
	}
	if f.record {
		spec["refused"] = refusedRecord
	}
	return spec
}

func (f *setFeature) Inject(ctx context.Context, e *nemesis.Env) ([]int32, map[string]any, error) {
	fa, ok := e.Admin.(FeatureAdmin)
	if !ok {
		return nil, nil, errors.New("the admin client cannot set features")
	}
	var before map[string]int16
	err := e.AdminCall(ctx, func(ctx context.Context) (err error) {
		before, err = fa.FinalizedFeatures(ctx)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	want := maps.Clone(f.features)
	d := map[string]any{"features_before": before}
	if f.finalize {
		sup, err := fa.SupportedFeatures(ctx)
		if err != nil {
			return nil, d, err
		}
		lvl, ok := sup[admin.FeatureMetadataVersion]
		if !ok {
			return nil, d, fmt.Errorf("no node reports a supported %s", admin.FeatureMetadataVersion)
		}
		want = map[string]int16{admin.FeatureMetadataVersion: lvl}
		d["supported"] = sup
	}
	d["set"] = want
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if before[name] == want[name] {
			continue // already there: UpdateFeatures would refuse a no-op upgrade
		}
		err := e.AdminCall(ctx, func(ctx context.Context) error {
			return fa.SetFeature(ctx, name, want[name], want[name] < before[name])
		})
		if err != nil {
			return nil, d, f.refusal(name, want[name], d, err)
		}
	}
	after, err := readFeatures(ctx, e, fa, want)
	d["features_after"] = after
	return nil, d, err
}

func (f *setFeature) Heal(context.Context, *nemesis.Env) error { return nil }

// refusal records Kafka's refusal of a level in d (details.refused: the
// feature, the level, Kafka's code and message) and makes err a Refusal
// when the step records refusals; any other error is returned as it is.
func (f *setFeature) refusal(name string, level int16, d map[string]any, err error) error {
	var ke *kerr.Error
	var fe *admin.FeatureUpdateError
	if !errors.As(err, &fe) || !errors.As(fe.Err, &ke) || !slices.Contains(refusalCodes, ke.Message) {
		return err
	}
	d["refused"] = map[string]any{"feature": name, "level": level, "code": ke.Message, "message": fe.Message}
	if f.record {
		return &nemesis.Refusal{Err: err}
	}
	return err
}

// readFeatures polls the finalized features until every level of want
// reads back (a broker learns it from the metadata log).
func readFeatures(ctx context.Context, e *nemesis.Env, fa FeatureAdmin, want map[string]int16) (map[string]int16, error) {
	ctx, cancel := context.WithTimeout(ctx, featureWait)
	defer cancel()
	var last map[string]int16
	var lastErr error
	for {
		got, err := fa.FinalizedFeatures(ctx)
		if err == nil {
			last = got
			ok := true
			for k, v := range want {
				ok = ok && got[k] == v
			}
			if ok {
				return got, nil
			}
		} else {
			lastErr = err
		}
		if ctxsleep.Sleep(ctx, nemesis.PollInterval) != nil {
			return last, fmt.Errorf("features %v not read back within %s (read %v, last error %v)", want, featureWait, last, lastErr)
		}
	}
}
