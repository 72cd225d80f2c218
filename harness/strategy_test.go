package harness

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/kchaos/kchaos/harness/scenario"
	"github.com/kchaos/kchaos/report"
)

// adaptive yields a cell per row so far until it has n rows: a strategy
// that decides its next cell from what came before.
type adaptive struct{ n int }

func (a adaptive) Next(rows []report.Row) (Cell, bool) {
	if len(rows) >= a.n {
		return Cell{}, false
	}
	return Cell{Row: report.Row{ID: fmt.Sprintf("after-%d", len(rows)), Status: report.CellNotApplicable}}, true
}

func (adaptive) Left() []Cell { return nil }

// TestRunBatchStrategy: the engine's one loop runs a strategy that
// decides each cell from the rows before it (its progress total unknown,
// 0), and a fixed list interrupted after its first row lists the rest as
// not run, the cell the engine took early included.
func TestRunBatchStrategy(t *testing.T) {
	suite := func(rows []report.Row) report.Batch {
		return report.SuiteBatch(report.SuiteFile{Name: "x", Cells: rows})
	}
	var totals []int
	res, err := RunBatch(context.Background(), &Plan{Strategy: adaptive{3}, What: "suite name", Name: "x", Prefix: "suite-", Batch: suite},
		BatchOptions{Options: Options{Store: t.TempDir()}, OnRow: func(_, total int, _ report.Row) { totals = append(totals, total) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 || res.Rows[2].ID != "after-2" || fmt.Sprint(totals) != "[0 0 0]" {
		t.Errorf("rows %+v, totals %v", res.Rows, totals)
	}

	story := func(id string) Cell { return Cell{Row: report.Row{ID: id}} }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err = RunBatch(ctx, &Plan{Cells: []Cell{story("s1"), story("s7"), story("s9")}, Prefix: "audit", NotRun: report.AuditNotRun,
		ListUnstarted: true, Batch: func(rows []report.Row) report.Batch { return report.AuditBatch(report.Audit{Kafka: "4.4.0"}, rows) }},
		BatchOptions{Options: Options{Store: t.TempDir()}, OnRow: func(done, total int, _ report.Row) {
			if done != 1 || total != 3 {
				t.Errorf("row %d of %d, want 1 of 3", done, total)
			}
			cancel()
		}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range res.Rows {
		ids = append(ids, fmt.Sprintf("%s/%v", r.ID, r.NotRun))
	}
	if fmt.Sprint(ids) != "[s1/false s7/true s9/true]" || !res.Interrupted {
		t.Errorf("rows %v, interrupted %v", ids, res.Interrupted)
	}
}

// foreseeing yields n cells of scenarios of its own and knows each next
// one before the one before runs (Foresight), as a random exploration
// does; it checks that each cell it yields is the one announced ahead.
type foreseeing struct {
	n     int
	next  *scenario.Scenario
	given int
}

func (f *foreseeing) Next([]report.Row) (Cell, bool) {
	if f.given >= f.n {
		return Cell{}, false
	}
	s := f.next
	if s == nil {
		s = &scenario.Scenario{Name: fmt.Sprintf("s%d", f.given)}
	}
	f.given++
	f.next = nil
	if f.given < f.n {
		f.next = &scenario.Scenario{Name: fmt.Sprintf("s%d", f.given)}
	}
	return Cell{Row: report.Row{ID: s.Name}, Scenario: s, Store: "runs"}, true
}

func (*foreseeing) Left() []Cell { return nil }

func (f *foreseeing) After() *Cell {
	if f.next == nil {
		return nil
	}
	return &Cell{Scenario: f.next, Store: "runs"}
}

// recorder is an Announcer that writes down what it is told.
type recorder struct{ told []string }

func (r *recorder) Announce(next *scenario.Scenario, store string) {
	name := "nil"
	if next != nil {
		name = next.Name
	}
	r.told = append(r.told, name+"@"+store)
}

func (r *recorder) Close() { r.told = append(r.told, "close") }

// TestRunCellAnnounces: the engine announces before each of a plan's
// cells the cell after it (a Foresight's, the very scenario then played,
// not a copy of it), nil where none is known, nothing before a cell not
// the batch's own (RunCell with Unannounced), and nil then Close at the
// end; a plan's Play runs its cells in Run's place and its Dir is the
// batch's folder, no page written when it has no Batch.
func TestRunCellAnnounces(t *testing.T) {
	for _, tc := range []struct {
		name   string
		follow Follows
		want   string
	}{
		{"own, next known", Announced(&Cell{Scenario: &scenario.Scenario{Name: "n"}}), "[n@ x]"},
		{"own, next unknown", Announced(nil), "[nil@shrink x]"},
		{"not own", Unannounced, "[x]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			p := &Plan{Announcer: r, Play: func(_ context.Context, c Cell) report.Row {
				r.told = append(r.told, c.Scenario.Name)
				return c.Row
			}}
			p.RunCell(context.Background(), Cell{Scenario: &scenario.Scenario{Name: "x"}, Store: "shrink"}, Options{}, tc.follow)
			if got := fmt.Sprint(r.told); got != tc.want {
				t.Errorf("told %s, want %s", got, tc.want)
			}
		})
	}

	r := &recorder{}
	f := &foreseeing{n: 3}
	var played []*scenario.Scenario
	dir := t.TempDir()
	p := &Plan{Strategy: f, Dir: dir, Announcer: r, Play: func(_ context.Context, c Cell) report.Row {
		played = append(played, c.Scenario)
		r.told = append(r.told, "play "+c.Scenario.Name)
		return c.Row
	}}
	var announced []*scenario.Scenario
	p.Announcer = announceFunc(func(next *scenario.Scenario, store string) {
		announced = append(announced, next)
		r.Announce(next, store)
	}, r.Close)
	res, err := RunBatch(context.Background(), p, BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "[s1@runs play s0 s2@runs play s1 nil@runs play s2 nil@ close]"
	if got := fmt.Sprint(r.told); got != want || res.Dir != dir || len(res.Rows) != 3 {
		t.Errorf("told %s, want %s; dir %s, %d rows", got, want, res.Dir, len(res.Rows))
	}
	for i := 1; i < len(played); i++ {
		if played[i] != announced[i-1] {
			t.Errorf("cell %d played %p, announced %p", i, played[i], announced[i-1])
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a plan without pages wrote %v", ents)
	}
}

// announceFuncs is an Announcer of two funcs (announceFunc makes one).
type announceFuncs struct {
	announce func(*scenario.Scenario, string)
	close    func()
}

func announceFunc(a func(*scenario.Scenario, string), c func()) Announcer { return announceFuncs{a, c} }

func (a announceFuncs) Announce(next *scenario.Scenario, store string) { a.announce(next, store) }
func (a announceFuncs) Close()                                         { a.close() }
