// Package explore is kchaos explore, shrink and bisect (issue 24): many
// runs of a scenario under seeded random fault mixes, each run judged by
// the checker and the scenario's invariant `outcome` checks; a run that
// breaks either is a finding, whose realised schedule (the history's nemesis
// ops) becomes a scripted scenario (repro.yaml) that the shrinker cuts
// down by delta debugging, trying each candidate several times because
// runs are not deterministic. docs/explore.md is the user's page.
//
// What a run is stays harness.Run's, and what a batch of runs is stays
// harness.RunBatch's: bisect is a matrix plan with its own judge, and an
// exploration is a plan whose strategy yields each next run and whose
// Play keeps what it gave (loop.go); a finding's shrink runs its
// candidates through the engine's step too. This package only chooses
// schedules, judges runs as findings and edits scenarios. The shrinker and the sharding are pure
// (an Oracle runs the candidates), so they are unit-tested without a
// cluster.
//
// Guided exploration (issue 40, --strategy guided) is pure too: package
// states abstracts each run's history into states and the transitions
// its faults caused (coverage.json), and Guide, a function of the seed,
// the coverage so far and the scenario, writes the next run's schedule
// as a scripted scenario, so that shrink and repro take it unchanged.
//
// Campaigns (issue 40, item 4: campaign*.go, signature.go, known.go) run
// an exploration per (scenario, version) cell within one time budget and
// count the findings by Signature (class, fault kinds and coarse roles,
// the transition before the anomaly) rather than by run, so that a night
// of runs reports bugs, labelled with the findings suite's JIRA where a
// cell's shape matches. Signatures, matching, dedup, budget shares and
// the page are pure; an Explore hook runs the cells.
package explore
