package explore

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kchaos/kchaos/internal/owned"
)

// campaignFile is a campaign folder's record (campaign.json); merge
// reads it, and campaign.md is its page.
const campaignFile = "campaign.json"

// CampaignRecord is a campaign (or one shard of it): its cells and its
// findings counted by signature.
type CampaignRecord struct {
	Name     string   `json:"name"`
	Shard    string   `json:"shard,omitempty"`
	Seed     int64    `json:"seed"`
	Strategy string   `json:"strategy"`
	Versions []string `json:"versions"`
	// AllCells are the IDs of every cell of the whole campaign (every
	// shard's), in order: what merge says is missing.
	AllCells      []string          `json:"all_cells"`
	BudgetSeconds float64           `json:"budget_seconds"`
	Started       time.Time         `json:"started"`
	Seconds       float64           `json:"seconds"`
	Interrupted   bool              `json:"interrupted,omitempty"`
	Cells         []CellRecord      `json:"cells"`
	Signatures    []SignatureRecord `json:"signatures"`
}

// CellRecord is one cell's exploration.
type CellRecord struct {
	CampaignCell
	// Index is the cell's place among AllCells.
	Index        int     `json:"index"`
	ShareSeconds float64 `json:"share_seconds,omitempty"`
	Seconds      float64 `json:"seconds"`
	BaseSeed     int64   `json:"base_seed,omitempty"`
	Runs         int     `json:"runs"`
	// judged are the runs that reached their check (explore's judged).
	Judged   int `json:"judged"`
	Findings int `json:"findings"`
	// Transitions are the distinct transitions the cell's runs covered.
	Transitions int `json:"transitions"`
	// Dir is the cell's exploration folder, relative to the campaign's.
	Dir     string `json:"dir,omitempty"`
	Skipped string `json:"skipped,omitempty"`
	// Stopped is the cell's exploration's Summary.Stopped: why it ended
	// early on runs failing in a row.
	Stopped string `json:"stopped,omitempty"`
	Err     string `json:"error,omitempty"`
}

// unjudged says the cell was explored (not skipped) and either judged no
// run or stopped on runs failing in a row: what its exploration alone
// would exit 2 for (Summary.Exit). Its "no findings" rests on nothing.
func (c CellRecord) unjudged() bool { return c.Skipped == "" && (c.Judged == 0 || c.Stopped != "") }

// note is the cell's line of the page: why it was skipped, stopped or
// failed.
func (c CellRecord) note() string {
	return strings.Join(slices.DeleteFunc([]string{c.Skipped, c.Stopped, c.Err}, func(s string) bool { return s == "" }), "; ")
}

// Seen is one finding of a signature: where and when.
type Seen struct {
	Time time.Time `json:"time"`
	Cell string    `json:"cell"`
	Run  int       `json:"run"`
	// Finding is the finding's folder, relative to the campaign's.
	Finding string `json:"finding"`
	// Rate is the shrinker's final reruns' "k/K" ("not shrunk": none).
	Rate string `json:"reproduced"`
}

// SignatureRecord is one signature and every finding of it.
type SignatureRecord struct {
	// ID is "S<n>", in order of first sight.
	ID        string    `json:"id"`
	Key       string    `json:"key"`
	Signature Signature `json:"signature"`
	Count     int       `json:"count"`
	Cells     []string  `json:"cells"`
	First     Seen      `json:"first"`
	Seen      []Seen    `json:"seen"`
	// label is the matching findings cell's JIRA (KnownCell.Label), or
	// "new"; KnownCell that cell's ID.
	Label     string `json:"label"`
	KnownCell string `json:"known_cell,omitempty"`
	// Upstream is the report-upstream text of a new signature (relative
	// path), UpstreamErr why it could not be written.
	Upstream    string      `json:"upstream,omitempty"`
	UpstreamErr string      `json:"upstream_error,omitempty"`
	BisectDir   string      `json:"bisect_dir,omitempty"`
	Bisect      []BisectRow `json:"bisect,omitempty"`
	BisectErr   string      `json:"bisect_error,omitempty"`
}

// rate is the signature's reproduction rate over its shrunk findings'
// final reruns that reached their check ("5/6"), "no rerun judged" when
// every one failed before it, or "not shrunk" when none was shrunk.
func (s SignatureRecord) rate() string {
	got, of := 0, 0
	for _, x := range s.Seen {
		var k, n int
		if _, err := fmt.Sscanf(x.Rate, "%d/%d", &k, &n); err == nil && n > 0 {
			got, of = got+k, of+n
		}
	}
	if of == 0 {
		if slices.ContainsFunc(s.Seen, func(x Seen) bool { return strings.Contains(x.Rate, rerunsFailed) }) {
			// Shrunk, but every final rerun failed before its check.
			return "no rerun judged"
		}
		return "not shrunk"
	}
	return fmt.Sprintf("%d/%d", got, of)
}

// add counts one finding under sig, and reports whether sig is new to
// the record (then labelled against known).
func (rec *CampaignRecord) add(sig Signature, seen Seen, known []KnownCell) bool {
	key := sig.key()
	for i := range rec.Signatures {
		sg := &rec.Signatures[i]
		if sg.Key != key {
			continue
		}
		sg.Count++
		sg.Seen = append(sg.Seen, seen)
		if !slices.Contains(sg.Cells, seen.Cell) {
			sg.Cells = append(sg.Cells, seen.Cell)
		}
		if seen.Time.Before(sg.First.Time) {
			sg.First = seen
		}
		return false
	}
	label, cell := label(sig, known)
	rec.Signatures = append(rec.Signatures, SignatureRecord{ID: fmt.Sprintf("S%d", len(rec.Signatures)+1), Key: key, Signature: sig,
		Count: 1, Cells: []string{seen.Cell}, First: seen, Seen: []Seen{seen}, Label: label, KnownCell: cell})
	return true
}

// Write writes campaign.json and campaign.md into dir.
func (rec *CampaignRecord) Write(dir string) error {
	if err := writeJSON(filepath.Join(dir, campaignFile), rec); err != nil {
		return err
	}
	return owned.Write(filepath.Join(dir, "campaign.md"), []byte(rec.Markdown()))
}

// Markdown is campaign.md: per signature its count, cells, first sight,
// rate, label and bisect; then per cell its runs, findings and coverage.
func (rec *CampaignRecord) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# kchaos campaign %s\n\n", rec.Name)
	fmt.Fprintf(&b, "Versions %s, strategy %s, seed %d", strings.Join(rec.Versions, ", "), rec.Strategy, rec.Seed)
	if rec.Shard != "" {
		fmt.Fprintf(&b, ", shard %s", rec.Shard)
	}
	fmt.Fprintf(&b, "; started %s, %.0f s of a %.0f s budget", rec.Started.Format(time.RFC3339), rec.Seconds, rec.BudgetSeconds)
	if rec.Interrupted {
		b.WriteString(", interrupted")
	}
	runs, findings := 0, 0
	for _, c := range rec.Cells {
		runs += c.Runs
		findings += c.Findings
	}
	fmt.Fprintf(&b, ".\n\n%d cells, %d runs, %d findings, %d signatures.", len(rec.Cells), runs, findings, len(rec.Signatures))
	if ids := rec.unjudgedCells(); len(ids) > 0 {
		fmt.Fprintf(&b, " **Cells that judged no run or stopped on runs failing in a row: %s** (what they would have found is not known; their notes say why).",
			strings.Join(ids, ", "))
	}
	b.WriteString("\n\n")
	if len(rec.Signatures) == 0 {
		b.WriteString("No findings.\n\n")
	} else {
		b.WriteString("## Signatures\n\n| signature | class | faults | count | cells | first seen | reproduced | label | upstream |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range rec.Signatures {
			up := orDash(s.Upstream)
			if s.UpstreamErr != "" {
				up = "failed: " + s.UpstreamErr
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s, %s run %d (%s) | %s | %s | %s |\n", s.ID, s.Signature.Class,
				oneLine(orDash(strings.Join(s.Signature.Faults, ", "))), s.Count, strings.Join(s.Cells, ", "),
				s.First.Time.Format(time.RFC3339), s.First.Cell, s.First.Run, s.First.Finding, s.rate(), s.Label, oneLine(up))
		}
		b.WriteString("\n")
		for _, s := range rec.Signatures {
			// A code span, not a table cell: its "|" stay.
			key := strings.ReplaceAll(strings.ReplaceAll(s.Key, "\n", " "), "`", "'")
			fmt.Fprintf(&b, "### %s\n\n`%s`\n\nRead from %s.", s.ID, key, s.Signature.Source)
			if s.KnownCell != "" {
				fmt.Fprintf(&b, " Matches findings cell %s.", s.KnownCell)
			}
			b.WriteString("\n\n")
			if len(s.Bisect) > 0 {
				b.WriteString("| settings | reproduced |\n|---|---|\n")
				for _, r := range s.Bisect {
					fmt.Fprintf(&b, "| %s | %d/%d |\n", r.Settings, r.Reproduced, r.Runs-r.NotRun)
				}
				fmt.Fprintf(&b, "\nBisect folder: %s.\n\n", s.BisectDir)
			}
			if s.BisectErr != "" {
				fmt.Fprintf(&b, "Bisect failed: %s.\n\n", oneLine(s.BisectErr))
			}
		}
	}
	b.WriteString("## Cells\n\n| cell | runs | findings | distinct transitions | seconds (share) | folder | note |\n|---|---|---|---|---|---|---|\n")
	for _, c := range rec.Cells {
		runs := fmt.Sprint(c.Runs)
		if c.Judged < c.Runs {
			runs += fmt.Sprintf(" (%d judged)", c.Judged)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %.0f (%.0f) | %s | %s |\n", c.ID, runs, c.Findings, c.Transitions, c.Seconds, c.ShareSeconds,
			orDash(c.Dir), oneLine(orDash(c.note())))
	}
	return b.String()
}
