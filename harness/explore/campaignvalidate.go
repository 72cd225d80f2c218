package explore

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/harness/scenario"
)

// campaignKeys are top-level keys only a campaign file has: neither a
// scenario nor a suite (entries:) writes them.
var campaignKeys = map[string]bool{"scenarios": true, "suites": true, "budget": true, "runs_per_cell": true}

// IsCampaignFile reports whether file is a campaign file (a file, not a
// built-in's name, whose top level has a campaign's own keys), so that
// 'kchaos validate' checks it as 'kchaos campaign' would rather than as
// a scenario that has unknown fields.
func IsCampaignFile(file string) bool {
	if _, builtin := scenario.BuiltinYAML(file); builtin {
		return false
	}
	data, err := scenario.ReadInput(file, "campaign")
	if err != nil {
		return false
	}
	doc, err := scenario.ParseYAML(data, file)
	if err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return false
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if campaignKeys[top.Content[i].Value] {
			return true
		}
	}
	return false
}

// ValidateCampaign checks a campaign file as 'kchaos campaign' does before
// its first cluster, for every shard's cells at once (LoadCampaign, then
// each cell's scenario loaded and explorable under the strategy), and says
// what would run: the budget, the strategy and the cells.
func ValidateCampaign(file string) (string, error) {
	c, err := LoadCampaign(file)
	if err != nil {
		return "", err
	}
	p, err := planCampaign(CampaignConfig{Campaign: c})
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s: valid campaign %s; budget %s, strategy %s, %d cells:\n",
		file, c.Name, c.budgetDuration(), p.strategy, len(p.cells))
	for _, cell := range p.cells {
		fmt.Fprintln(&b, cell.ID)
	}
	return b.String(), nil
}
