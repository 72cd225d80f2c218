package admin

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
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
	typ := int8(1) // upgrade
	if downgrade {
		typ = 2 // safe downgrade
	}
	res, err := c.adm.UpdateFeatures(ctx, false, kadm.FeatureUpdate{Feature: name, MaxVersionLevel: level, UpgradeType: typ})
	if err != nil {
		return fmt.Errorf("update feature %s=%d: %w", name, level, err)
	}
	if err := res.Error(); err != nil {
		return fmt.Errorf("update feature %s=%d: %w", name, level, err)
	}
	return nil
}

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
