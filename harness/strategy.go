package harness

import (
	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// Cell is one scenario under one set of settings on one Kafka version,
// loaded and checked before any cluster starts.
type Cell struct {
	// Row is the cell's row before it runs: its ID, scenario, settings and
	// version, and for a cell that cannot run its Status and Reason.
	Row report.Row
	// Scenario is what runs; nil when the cell does not (Row says why,
	// and Err when a load refused it).
	Scenario *scenario.Scenario
	Err      error
	// Store is the folder its run folder goes in ("": the batch's
	// Options.Store): an exploration's runs go under its runs/, a
	// shrink's candidates under shrink/<finding>/.
	Store string
}

// Strategy yields a batch's cells one at a time, so that the engine has
// one loop whether the cells are known up front or decided as the batch
// goes: matrix, suite and audit plan a fixed list (Plan.Cells); a
// strategy that reads the rows so far can yield the next cell from what
// came before (a random schedule after a clean run, a shrink candidate
// after a finding), and the engine runs it, on the cluster its Clusters
// gives, like any other.
type Strategy interface {
	// Next is the cell to run after the rows so far; false ends the
	// batch.
	Next(rows []report.Row) (Cell, bool)
	// Left lists the cells still to come when they are known without the
	// rows (a fixed list), nil when the strategy decides them as it goes:
	// the engine then knows the batch's size for its progress lines, can
	// announce the next cell to its Clusters (a cluster started ahead),
	// and lists what an interruption kept from starting.
	Left() []Cell
}

// cellList is the Strategy of a fixed list of cells, in order.
type cellList struct {
	cells []Cell
	next  int
}

func (l *cellList) Next([]report.Row) (Cell, bool) {
	if l.next >= len(l.cells) {
		return Cell{}, false
	}
	l.next++
	return l.cells[l.next-1], true
}

func (l *cellList) Left() []Cell { return l.cells[l.next:] }

// foresight is a Strategy that, once it yielded a cell, may know the one
// after it before the first runs without a fixed list (a random
// exploration's next seed, for as long as --for lasts): After is that
// cell, nil when it is not known yet (a guided run's schedule waits for
// the coverage of the run before). The engine announces it to its
// Clusters, so that its cluster starts ahead, and runs the very scenario
// it announced when Next yields it.
type foresight interface {
	After() *Cell
}

// cellSource is the engine's side of a Strategy: each cell's scenario a
// copy of its own (Run fills the seed in), and with a fixed list the
// next cell taken early, so that its scenario can be announced to the
// batch's Clusters before the cell before it runs (a cluster started
// ahead is matched to its run by that very scenario).
type cellSource struct {
	st     Strategy
	peeked *Cell
	// foreseen is the scenario a Foresight announced, and mine the copy
	// announced for it: the copy runs when Next yields it.
	foreseen, mine *scenario.Scenario
}

// next is the cell to run and the one after it when the strategy knows
// it already (nil otherwise).
func (src *cellSource) next(rows []report.Row) (c Cell, after *Cell, ok bool) {
	if src.peeked != nil {
		c, ok, src.peeked = *src.peeked, true, nil
	} else if c, ok = src.st.Next(rows); ok {
		c = src.own(c)
	}
	if ok && src.st.Left() != nil {
		if n, more := src.st.Next(rows); more {
			n = ownScenario(n)
			src.peeked = &n
		}
	}
	if f, is := src.st.(foresight); ok && is {
		if a := f.After(); a != nil {
			n := ownScenario(*a)
			src.foreseen, src.mine = a.Scenario, n.Scenario
			return c, &n, ok
		}
	}
	return c, src.peeked, ok
}

// own is c with a scenario of its own: the copy announced for it when a
// Foresight announced it.
func (src *cellSource) own(c Cell) Cell {
	if c.Scenario != nil && c.Scenario == src.foreseen {
		c.Scenario = src.mine
		src.foreseen, src.mine = nil, nil
		return c
	}
	return ownScenario(c)
}

// left is every cell still to come when known: the one taken early too.
func (src *cellSource) left() []Cell {
	left := src.st.Left()
	if src.peeked != nil {
		left = append([]Cell{*src.peeked}, left...)
	}
	return left
}

func ownScenario(c Cell) Cell {
	if c.Scenario != nil {
		s := *c.Scenario
		c.Scenario = &s
	}
	return c
}
