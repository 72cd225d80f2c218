package admin

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Feature names kchaos sets or reads (KIP-584 finalized features).
const (
	FeatureMetadataVersion = "metadata.version"
	FeatureELR             = "eligible.leader.replicas.version"
	FeatureTransaction     = "transaction.version"
	FeatureShare           = "share.version"
)

// FinalizedFeatures returns the cluster's finalized feature levels, as a
// broker reports them in its ApiVersions response (v3+, KIP-584), e.g.
// {"metadata.version": 27, "eligible.leader.replicas.version": 1}.
func (c *Client) FinalizedFeatures(ctx context.Context) (map[string]int16, error) {
	resp, err := c.apiVersions(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int16{}
	for _, f := range resp.FinalizedFeatures {
		out[f.Name] = f.MaxVersionLevel
	}
	return out, nil
}

// SetFeature raises (or, with downgrade, lowers) a finalized feature's
// level live, as `kafka-features upgrade --feature name=level` does: for
// example eligible.leader.replicas.version=1 to turn ELR on in a cluster
// upgraded in place, or metadata.version to the new release's level to
// finalise an upgrade.
func (c *Client) SetFeature(ctx context.Context, name string, level int16, downgrade bool) error {
	// By hand, not kadm.UpdateFeatures: kadm keeps Kafka's error code and
	// drops its message, and the message is the evidence of a refusal
	// (which node's supported range refused the level).
	req := kmsg.NewPtrUpdateFeaturesRequest()
	req.TimeoutMillis = 15000
	u := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
	u.Feature, u.MaxVersionLevel, u.UpgradeType = name, level, 1 // upgrade
	if downgrade {
		u.UpgradeType, u.AllowDowngrade = 2, true // safe downgrade
	}
	req.FeatureUpdates = append(req.FeatureUpdates, u)
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return fmt.Errorf("update feature %s=%d: %w", name, level, err)
	}
	code, msg := resp.ErrorCode, resp.ErrorMessage
	for _, r := range resp.Results { // v0-v1 answer per feature
		if code == 0 && r.ErrorCode != 0 {
			code, msg = r.ErrorCode, r.ErrorMessage
		}
	}
	if code == 0 {
		return nil
	}
	e := &FeatureUpdateError{Feature: name, Level: level, Err: kerr.ErrorForCode(code)}
	if msg != nil {
		e.Message = *msg
	}
	return e
}

// FeatureUpdateError is Kafka's answer with an error to a feature update: its
// error code and its message, which for a refusal names what refused it (a
// controller whose registration does not support the level).
type FeatureUpdateError struct {
	Feature string
	Level   int16
	Err     error // the kerr error of Kafka's code
	Message string
}

func (e *FeatureUpdateError) Error() string {
	s := fmt.Sprintf("update feature %s=%d: %v", e.Feature, e.Level, e.Err)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func (e *FeatureUpdateError) Unwrap() error { return e.Err }

// SupportedFeatures returns, per feature, the highest level every broker
// answering supports (the ApiVersions SupportedFeatures max): the level a
// finalisation after an upgrade can raise metadata.version to.
func (c *Client) SupportedFeatures(ctx context.Context) (map[string]int16, error) {
	resp, err := c.apiVersions(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int16{}
	for _, f := range resp.SupportedFeatures {
		out[f.Name] = f.MaxVersion
	}
	return out, nil
}

// apiVersions is one broker's ApiVersions answer (v3+ carries the
// features, KIP-584); an answer with an error code is an error.
func (c *Client) apiVersions(ctx context.Context) (*kmsg.ApiVersionsResponse, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName = "kchaos"
	req.ClientSoftwareVersion = "1"
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return nil, fmt.Errorf("api versions: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, fmt.Errorf("api versions: %w", err)
	}
	return resp, nil
}
