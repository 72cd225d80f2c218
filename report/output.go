package report

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/kchaos/kchaos/checker/linearize"
	"github.com/kchaos/kchaos/internal/owned"
)

// The report's outputs go through internal/owned (kchaos writes only what
// it owns: a temporary file renamed over the name, never through a link);
// this file names which files a check of a run folder writes, so that
// `kchaos check` can refuse before it writes any.

// runOutputs are the files a report of a run folder writes (Write), with
// the porcupine visualizations already in the folder, which a check
// rewrites: what `kchaos check` of a run folder must be free to write.
func runOutputs(dir string) []string {
	out := []string{ReportMD, ReportHTML, JUnitFile}
	return append(out, existing(dir, linearize.VisualizationPrefix, linearize.VisualizationSuffix)...)
}

// CheckOutputsOf checks every output `kchaos check PATH` would write
// besides its results file (which the checker checks): for a run folder
// (or its history.jsonl) the report's files and the porcupine pages; for
// a history file of another name the porcupine pages named after it.
// Nil when all can be written.
func CheckOutputsOf(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil // the checker names a path it cannot read
	}
	if st.IsDir() {
		return owned.CheckAll(path, runOutputs(path)...)
	}
	dir, base := filepath.Split(path)
	if base == HistoryFile {
		return owned.CheckAll(dir, runOutputs(dir)...)
	}
	prefix := strings.TrimSuffix(base, filepath.Ext(base)) + "."
	return owned.CheckAll(dir, existing(dir, prefix+linearize.VisualizationPrefix, linearize.VisualizationSuffix)...)
}

// existing lists the entries of dir named prefix*suffix.
func existing(dir, prefix, suffix string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, prefix) && strings.HasSuffix(n, suffix) {
			out = append(out, n)
		}
	}
	return out
}
