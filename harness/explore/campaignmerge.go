package explore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/internal/owned"
)

// IsCampaign reports whether dir is a campaign's folder (campaign.json),
// which merge joins as campaign shards.
func IsCampaign(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, campaignFile))
	return err == nil
}

// MergedCampaign is the shard folders of one campaign joined: one
// record whose signatures are deduplicated across the shards (a bug two
// shards found is one signature, counted twice), and what is missing.
type MergedCampaign struct {
	CampaignRecord
	Shards       int      `json:"shards"`
	Missing      []int    `json:"missing_shards,omitempty"`
	MissingCells []string `json:"missing_cells,omitempty"`
}

// MergeCampaigns joins campaign folders that are shards of one campaign
// (one name, seed, strategy, cell list and shard count: campaignDiff). Folders and paths in the
// result are joined to their shard's folder. Bad folders are a
// *scenario.BadInputError.
func MergeCampaigns(dirs []string) (*MergedCampaign, error) {
	bad := func(format string, a ...any) error { return &scenario.BadInputError{Err: fmt.Errorf(format, a...)} }
	m := &MergedCampaign{}
	seen := map[int]string{}
	for k, dir := range dirs {
		b, err := histories.ReadRegular(filepath.Join(dir, campaignFile))
		if err != nil {
			return nil, bad("%s: not a campaign folder (%v)", dir, err)
		}
		var r CampaignRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, bad("%s: %v", filepath.Join(dir, campaignFile), err)
		}
		if r.Name == "" || len(r.AllCells) == 0 {
			return nil, bad("%s: not a campaign's record: name or all_cells missing", filepath.Join(dir, campaignFile))
		}
		sh, err := ParseShard(r.Shard)
		if err != nil {
			return nil, bad("%s: %v", filepath.Join(dir, campaignFile), err)
		}
		if sh.whole() {
			sh = Shard{I: 1, N: 1}
		}
		if k == 0 {
			m.Name, m.Seed, m.Strategy, m.Versions, m.AllCells, m.Shards = r.Name, r.Seed, r.Strategy, r.Versions, r.AllCells, sh.N
			m.BudgetSeconds, m.Started = r.BudgetSeconds, r.Started
		} else if why := campaignDiff(m, &r, sh.N); why != "" {
			return nil, bad("%s and %s: %s: not shards of one campaign", dirs[0], dir, why)
		}
		if other, dup := seen[sh.I]; dup {
			return nil, bad("%s and %s are both shard %d/%d", other, dir, sh.I, sh.N)
		}
		seen[sh.I] = dir
		if r.Started.Before(m.Started) {
			m.Started = r.Started
		}
		m.Seconds = max(m.Seconds, r.Seconds)
		m.Interrupted = m.Interrupted || r.Interrupted
		for _, c := range r.Cells {
			if c.Dir != "" {
				c.Dir = filepath.Join(dir, c.Dir)
			}
			m.Cells = append(m.Cells, c)
		}
		for _, s := range r.Signatures {
			for _, x := range s.Seen {
				x.Finding = filepath.Join(dir, x.Finding)
				if m.add(s.Signature, x, nil) {
					// Labelled by the shard that saw it first (the
					// findings cells of its kchaos).
					mine := m.sig(s.Key)
					mine.Label, mine.KnownCell = s.Label, s.KnownCell
				}
			}
			mine := m.sig(s.Key)
			if mine.Upstream == "" && s.Upstream != "" {
				mine.Upstream = filepath.Join(dir, s.Upstream)
			}
			if len(mine.Bisect) == 0 && len(s.Bisect) > 0 {
				mine.Bisect, mine.BisectDir = s.Bisect, s.BisectDir
			}
		}
	}
	slices.SortStableFunc(m.Cells, func(a, b CellRecord) int { return a.Index - b.Index })
	have := map[string]bool{}
	for _, c := range m.Cells {
		have[c.ID] = true
	}
	for _, id := range m.AllCells {
		if !have[id] {
			m.MissingCells = append(m.MissingCells, id)
		}
	}
	for i := 1; i <= m.Shards; i++ {
		if _, ok := seen[i]; !ok {
			m.Missing = append(m.Missing, i)
		}
	}
	return m, nil
}

// sig is the signature of key (it exists).
func (rec *CampaignRecord) sig(key string) *SignatureRecord {
	for i := range rec.Signatures {
		if rec.Signatures[i].Key == key {
			return &rec.Signatures[i]
		}
	}
	return nil
}

// Markdown is the merged campaign's page: the shards and cells missing,
// then the campaign page over every shard.
func (m *MergedCampaign) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Merged from %d shard(s).", m.Shards)
	if len(m.Missing) > 0 {
		fmt.Fprintf(&b, " **Missing shards: %v**.", m.Missing)
	}
	if len(m.MissingCells) > 0 {
		fmt.Fprintf(&b, " **Cells in no shard: %s**.", strings.Join(m.MissingCells, ", "))
	}
	b.WriteString("\n\n")
	page := m.CampaignRecord.Markdown()
	head, rest, _ := strings.Cut(page, "\n\n")
	return head + "\n\n" + b.String() + rest
}

// Write writes campaign.json and campaign.md of the merge into dir.
func (m *MergedCampaign) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, campaignFile), m); err != nil {
		return err
	}
	return owned.Write(filepath.Join(dir, "campaign.md"), []byte(m.Markdown()))
}

// campaignDiff says how shard r (of n) differs from the campaign m
// merges ("" where it is one of its shards): its name, seed, shard
// count, strategy or cells (which name each scenario, setting and
// version).
func campaignDiff(m *MergedCampaign, r *CampaignRecord, n int) string {
	switch {
	case r.Name != m.Name:
		return fmt.Sprintf("campaign %s against %s", m.Name, r.Name)
	case r.Seed != m.Seed:
		return fmt.Sprintf("seed %d against %d", m.Seed, r.Seed)
	case n != m.Shards:
		return fmt.Sprintf("%d shard(s) against %d", m.Shards, n)
	case strategyDiff(m.Strategy, r.Strategy) != "":
		return strategyDiff(m.Strategy, r.Strategy)
	case !slices.Equal(r.AllCells, m.AllCells):
		for i := range min(len(m.AllCells), len(r.AllCells)) {
			if m.AllCells[i] != r.AllCells[i] {
				return fmt.Sprintf("cell %d %s against %s", i+1, m.AllCells[i], r.AllCells[i])
			}
		}
		return fmt.Sprintf("%d cells against %d", len(m.AllCells), len(r.AllCells))
	}
	return ""
}

// Exit is the merge's exit: 1 with a new signature, else 2 with shards
// or cells missing, else 0 (known signatures are not news).
func (m *MergedCampaign) Exit() int {
	if c := m.CampaignRecord.Exit(); c != 0 {
		return c
	}
	if len(m.Missing) > 0 || len(m.MissingCells) > 0 {
		return 2
	}
	return 0
}

// Exit is a campaign's exit: 1 when a signature is new (news for Kafka's
// JIRA), 2 when some cell judged no run or stopped on runs failing in a
// row (CellRecord.unjudged: a gate is not green on a cell that checked
// nothing, as an exploration alone would not be), or no cell ran at all,
// else 0.
func (rec *CampaignRecord) Exit() int {
	for _, s := range rec.Signatures {
		if s.Label == "new" {
			return 1
		}
	}
	if len(rec.unjudgedCells()) > 0 || !slices.ContainsFunc(rec.Cells, func(c CellRecord) bool { return c.Judged > 0 }) {
		return 2
	}
	return 0
}

// unjudgedCells are the ids of the cells that judged nothing
// (CellRecord.unjudged), in the campaign's order.
func (rec *CampaignRecord) unjudgedCells() []string {
	var ids []string
	for _, c := range rec.Cells {
		if c.unjudged() {
			ids = append(ids, c.ID)
		}
	}
	return ids
}
