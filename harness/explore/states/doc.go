// Package states abstracts one run's history into the states Kafka went
// through and the transitions each fault caused (issue 40, item 1): the
// feedback a guided exploration learns from, after Mallory (Meng et al.,
// CCS 2023), which guided Jepsen's faults by coverage of abstract states.
// kchaos records what such feedback needs without instrumenting Kafka:
// the observer's samples (leader, epoch, ISR, ELR, log end offsets), its
// quorum samples, the brokers' log markers and every nemesis op with the
// nodes it touched and its proof.
//
// A State is small on purpose: a handful of components, each with a few
// values, so that the set of transitions (state before, fault and target
// role, state after) a run can show is finite and two runs that did the
// same thing to Kafka show the same transitions whatever their offsets,
// times and broker ids. Every component says "unknown" where the history
// holds no evidence for it (a history without quorum samples says nothing
// of the quorum; a run whose logs were not read says nothing of
// truncations it did not otherwise see): the abstraction never guesses.
//
// Coverage is the set of transitions, counted; a run's is written into its
// folder as coverage.json and an exploration sums them.
//
// The package is pure: it reads histories.Event values and markers given
// to it (package brokerlogs owns the marker names and the logs; the caller
// converts), and imports only histories and internal/*: no Docker, no
// network, no cluster.
package states
