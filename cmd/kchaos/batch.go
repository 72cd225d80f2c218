package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kchaos/kchaos/harness"
	"github.com/kchaos/kchaos/harness/progress"
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// runBatch runs a planned matrix, suite or audit in a session, a line per
// row on stderr, then prints the page's path as "label: path" and the
// page itself (markdown) on stdout; the exit code is the page's rule.
func runBatch(label string, plan *harness.Plan, f *runFlags) error {
	return runBatchThen(label, plan, f, nil)
}

// runBatchThen is runBatch whose finished batch then prints more and
// decides the exit (bisect's table); nil keeps the page's rule.
func runBatchThen(label string, plan *harness.Plan, f *runFlags, then func(res *harness.BatchResult) error) error {
	var (
		res  *harness.BatchResult
		rerr error
	)
	serr := session(func(ctx context.Context, p *progress.Printer) error {
		res, rerr = harness.RunBatch(ctx, plan, harness.BatchOptions{Options: f.options(p), AllowEmpty: f.allowEmpty,
			OnRow: func(done, total int, r report.Row) {
				p.Finish()
				// A refused cell's reason starts with its status ("needs ..."):
				// said once.
				what := strings.TrimSpace(string(r.Status) + " " + r.Reason)
				if strings.HasPrefix(r.Reason, string(r.Status)+" ") {
					what = r.Reason
				}
				fmt.Fprintf(os.Stderr, "%s: [%d/%d] %s: %s\n", label, done, total, r.ID, what)
			}})
		p.Finish()
		if res != nil && res.Interrupted {
			fmt.Fprintf(os.Stderr, "%s: interrupted; the %s folder has the rows finished so far\n", label, label)
		}
		return nil
	})
	if serr != nil {
		return serr
	}
	if res != nil {
		path := filepath.Join(res.Dir, res.Page.File+".md")
		fmt.Println(label+":", path)
		if b, err := os.ReadFile(path); err == nil {
			fmt.Print(string(b))
		}
	}
	if rerr != nil {
		return runError(rerr)
	}
	if then != nil {
		return then(res)
	}
	return batchExit(res)
}

// batchExit is the batch's exit code (its page's rule); a batch that
// judged no row says so ("nothing was judged: ..."), and when every row
// was not applicable, that --allow-empty would accept it.
func batchExit(res *harness.BatchResult) error {
	code := res.ExitCode()
	if code == exitValid {
		return nil
	}
	if err := res.NothingJudged(); err != nil && code == exitUnknown {
		if res.AllowedEmpty() {
			err = fmt.Errorf("%w; a gate is not green on nothing (--allow-empty accepts it)", err)
		}
		return &exitError{code: code, err: err}
	}
	return withCode(code)
}

// registerAllowEmpty adds --allow-empty to a command that judges cells.
func registerAllowEmpty(cmd *cobra.Command, allow *bool) {
	cmd.Flags().BoolVar(allow, "allow-empty", false,
		"pass when nothing was judged because every cell is not applicable (default: exit 2, a gate is not green on nothing)")
}

// runError maps an error a harness run returned to its exit: bad input in
// a scenario found late (254), anything else internal (255).
func runError(err error) error {
	var bad *scenario.BadInputError
	if errors.As(err, &bad) {
		return badInput(err)
	}
	return internal(err)
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
