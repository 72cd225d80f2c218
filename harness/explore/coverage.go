package explore

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/kchaos/kchaos/brokerlogs"
	"github.com/kchaos/kchaos/checker"
	"github.com/kchaos/kchaos/harness/explore/states"
	"github.com/kchaos/kchaos/histories"
)

// readRunEvidence is a run folder's evidence for the state abstraction:
// its history, its run.json (absent: nil) and its brokers' log markers
// (logs/summary.json; absent: none read, so a truncation the samples did
// not show stays unknown).
func readRunEvidence(dir string) (states.Input, error) {
	events, _, err := histories.ReadFile(filepath.Join(dir, checker.HistoryFile))
	if err != nil {
		return states.Input{}, err
	}
	in := states.Input{Events: events}
	if info, err := histories.ReadRunInfo(filepath.Join(dir, histories.RunInfoFile)); err == nil {
		in.Info = &info
	} else if !errors.Is(err, fs.ErrNotExist) {
		return in, err
	}
	sum, err := brokerlogs.Read(dir)
	switch {
	case err == nil:
		in.MarkersRead = true
		in.Markers = markersOf(sum)
	case !errors.Is(err, fs.ErrNotExist):
		return in, err
	}
	return in, nil
}

// markersOf is the summary's markers as states reads them: those placed
// on the history's clock.
func markersOf(sum *brokerlogs.Summary) []states.Marker {
	var out []states.Marker
	for _, m := range sum.Markers {
		if m.Time == nil {
			continue
		}
		out = append(out, states.Marker{Name: m.Name, Node: m.Node, Time: *m.Time, Partition: m.Partition, Fields: m.Fields})
	}
	return out
}

// runCoverage abstracts the run in dir and writes its coverage.json
// there.
func runCoverage(dir string) (*states.Coverage, error) {
	in, err := readRunEvidence(dir)
	if err != nil {
		return nil, err
	}
	c := states.Of(states.Abstract(in))
	return c, c.Write(filepath.Join(dir, states.CoverageFile))
}
