package explore

import (
	"errors"
	"fmt"
)

// Exit codes of explore, merge and bisect, one rule each, here: a finding
// is 1; nothing judged is 2, never a pass (a gate is not green on
// nothing).

// judged says the run was judged: it reached its check (a run that
// failed before it, or whose checks held vacuously, has Err).
func (r RunRecord) judged() bool { return r.Err == "" }

// judgedRuns counts the runs of rs that were judged.
func judgedRuns(rs []RunRecord) int {
	n := 0
	for _, r := range rs {
		if r.judged() {
			n++
		}
	}
	return n
}

// judged counts the exploration's judged runs.
func (s *Summary) judged() int { return judgedRuns(s.RunRecords) }

// Exit is the exploration's exit code: 1 with a finding, else 2 when no
// run was judged or it stopped on runs failing in a row, else 0.
func (s *Summary) Exit() int {
	switch {
	case len(s.Findings) > 0:
		return 1
	case s.judged() == 0 || s.Stopped != "":
		return 2
	}
	return 0
}

// Why says why the exit is 2 (nil otherwise): the runs that failed in a
// row, or "nothing was judged" with the last run's error.
func (s *Summary) Why() error {
	if s.Exit() != 2 {
		return nil
	}
	if s.Stopped != "" {
		return errors.New(s.Stopped)
	}
	return nothingJudged(len(s.RunRecords), s.RunRecords)
}

// nothingJudged is "nothing was judged" over runs, naming the last
// error.
func nothingJudged(n int, runs []RunRecord) error {
	if n == 0 {
		return errors.New("nothing was judged: no run was made")
	}
	last := runs[len(runs)-1]
	return fmt.Errorf("nothing was judged: every run of %d failed before its check (the last, run %d: %s)", n, last.Index, last.Err)
}

// Exit is the merge's exit code: 1 with a finding; else 2 when shards are
// missing, when a shard judged no run (Failed), or when no run was
// judged at all; else 0. allowEmpty (--allow-empty) accepts shards that
// made no run (an exploration bounded by --for that ended before its
// first), never runs that failed.
func (m *Merged) Exit(allowEmpty bool) int {
	switch {
	case len(m.Findings) > 0:
		return 1
	case len(m.Missing) > 0:
		return 2
	case len(m.RunRecords) == 0:
		if allowEmpty {
			return 0
		}
		return 2
	case len(m.Failed) > 0:
		return 2
	}
	return 0
}

// Why says why the merge's exit is 2 (nil otherwise, or when only shards
// are missing, which the page says).
func (m *Merged) Why(allowEmpty bool) error {
	if m.Exit(allowEmpty) != 2 {
		return nil
	}
	judged := judgedRuns(m.RunRecords)
	switch {
	case judged == 0 && len(m.RunRecords) == 0:
		return errors.New("nothing was judged: the shards made no run (--allow-empty accepts that)")
	case judged == 0:
		return nothingJudged(len(m.RunRecords), m.RunRecords)
	case len(m.Failed) > 0:
		return fmt.Errorf("shard(s) %v judged no run: every run of theirs failed before its check", m.Failed)
	}
	return nil
}

// NothingJudged says, when no run of a bisect was made, that nothing was
// judged; nil when one was.
func (b *Bisect) NothingJudged(rows []BisectRow) error {
	runs, notRun := 0, 0
	for _, r := range rows {
		runs += r.Runs
		notRun += r.NotRun
	}
	if runs > notRun {
		return nil
	}
	return fmt.Errorf("nothing was judged: none of the %d run(s) of the bisect was made (the rows say why)", runs)
}
