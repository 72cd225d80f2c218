// Package checker turns a history (histories, format v1) into a verdict
// that a durability review can rest on. It is pure: no Docker, no network.
// It follows docs/HISTORY.md: the anomaly names, what each counts and
// the verdict rules are the contract's.
//
// # Entry points
//
// CheckPath checks a run folder or a history file and writes results.json
// beside it (the harness calls it after a run; `kchaos check` wraps it).
// CheckReader streams a history; Check takes events in memory; New, Add and
// Result feed events one at a time.
//
// # Domains
//
// The checker is composed of domains (domains.go), each in a package of
// its own, declaring its anomalies and the rule by which they count, and
// finding them on its own after one decode of the history: log and order
// (package logorder), retention (package retention), linearizability
// (package linearize), transactions (package txncheck), consumer groups
// (package groupcheck), share groups (package share) and KRaft metadata
// (package metadata). This package
// decodes (Add: client.go, reads.go, txn.go, group*.go, cluster.go),
// composes the domains (domains.go and one glue file each, domain_*.go)
// and owns the verdict, the stats and results.json.
//
// The decoded history is package model's History (the Checker fills it
// one event at a time, with what must be followed while it streams:
// model.Log, model.Transactions, model.Groups); what analyzers share in
// reading it is package judge (Where, FaultRef, Explanation, the
// final-read judgement judge.Finals). An analyzer implements package
// domain's Analyzer: it reads a domain.Input (the History, judge.Places,
// judge.Finals, the acked sends, the options its rules depend on, and
// domain.Facts, the judgements that cross domains, and what this package
// decoded for it alone, domain.Input.Decoded), appends its entries to its
// own struct of entry lists, and returns its Findings (explanations,
// reasons, anything it adds to the stats, to the Result or to another
// domain's list).
//
// # Adding a domain
//
// A new domain is added in its own package, say checker/share (the
// newest domains, share groups, metadata and retention, are examples):
//
//  1. What must be followed while the history streams (state at a moment)
//     is decoded here, in the Checker's Add (client.go dispatches on f),
//     into a table of model.History, or, if no other domain needs it,
//     into the package's own decoder, which the Checker keeps and hands
//     over as domain.Input.Decoded (share.Builder, metadata.Collector);
//     the rest is judged in the package. An option of a check that a rule
//     depends on reaches it as a field of domain.Input.
//  2. The package declares its entry types and a struct of their lists,
//     named after the domain (ShareAnomalies: Anomalies embeds it, so two
//     domains' structs must not share a name), each list tagged with its
//     kind: the name as its JSON name, the unit and the rule, e.g.
//     `json:"share-lost,omitempty" unit:"per record" rule:"always"`
//     (domain.New reads them; a comment above a list says why its rule is what it
//     is); its Analyzer, made by domain.New of its name and its
//     analyze(*domain.Input, *ShareAnomalies) *Found, where Found embeds
//     domain.Base (its explanations in Base.Expl) and overrides the
//     reasons it needs (Invalid, Uncounted, Notes, Unknowns). package
//     groupcheck and package retention are the smallest examples.
//  3. Here, one glue file, domain_share.go: a var made by port (the
//     analyzer; the slot of its struct in Anomalies; a glue of the hooks
//     it needs, each optional: place, what it puts in the Result beyond
//     its entries (domain_lin.go); stats, what it adds to Stats
//     (domain_groups.go); decoded, its own decoder (domain_share.go)),
//     and aliases of its names and entry types where results.json's
//     readers need them; one line embedding
//     share.ShareAnomalies at the end of Anomalies (result.go: its JSON
//     keys follow the others'), one line in the registry (domains.go).
//
// The verdict, the counts, CountsAgainst, AnomalyNames and the reasons
// then read the domain's declarations and findings: nothing else changes.
//
// # Anomalies (HISTORY.md) and their units
//
//	lost-write        per send    acked with an offset, value absent from the
//	                              partition's last completed final read
//	offset-reuse      per offset  two or more values at one offset, from acked
//	                              sends, polls and final reads
//	duplicate         per value   one value at two or more offsets
//	aborted-read      per value   read although its send completed fail
//	unexpected        per value   read although no send invoked it
//	nonmonotonic-send occurrence  a process's ack below its previous one there
//	poll-skip         occurrence  a consumer's next poll began past the offset
//	                              after its last, skipping offsets the final
//	                              read shows exist (no assign between)
//	nonmonotonic-poll occurrence  ... began at or before its last offset
//	unseen            per send    acked, never polled, on a partition without
//	                              a completed final read
//
// Transactions (txn ops; decoded in txn.go, judged in package txncheck):
//
//	txn-lost-write       per send  a committed txn's acked send missing from
//	                               the final read (lost-write's window)
//	txn-aborted-read     per value a failed txn's value read at read_committed
//	txn-uncommitted-read per value read at read_committed before its txn could
//	                               have committed (or by the txn itself)
//	txn-duplicate        per value a txn's value at two or more offsets
//	txn-torn             per txn   partly visible, or out of send order
//	G0                   per cycle ww-only cycle among txns: not counted
//	G1c                  per cycle wr-only cycle among txns
//
// Consumer groups (subscribe, commit, rebalance, group polls, group-final;
// decoded in group.go, groupauto.go, groupcontinue.go, grouprebal.go,
// groupoutside.go, groupfinal.go; judged in package groupcheck):
//
//	lost-by-commit       per range records of the final read below an ok
//	                               commit that no member delivered
//	commit-backwards     per case  a newly assigned member resumed below an
//	                               ok commit, or an ok commit went lower
//	                               (an auto commit: see groupauto.go)
//	commit-lost          per part. the committed offset read back (group-final)
//	                               is below the last acknowledged commit
//	commit-unexplained   per part. read back an offset no commit asked for:
//	                               not counted
//	redelivery           per range delivered again (counted only when
//	                               Options.ExactlyOnce, from run.json)
//	delivery-outside-assignment
//	                     per poll  a member's poll delivered a partition its
//	                     and part. client did not hold (histories.Holdings;
//	                               counted only when Options.ExactlyOnce)
//
// KRaft metadata and the controller quorum (metadata ops, metadata reads,
// quorum samples, add-controller and remove-controller; judged in package
// metadata, which docs/HISTORY.md's "KRaft metadata and the controller
// quorum: what the checker proves" states):
//
//	metadata-lost        per change an acked topic change the converged
//	                                metadata lacks
//	metadata-diverged    per node   a broker off the converged metadata, a
//	                                leader's high watermark gone back
//	split-brain          per epoch  two leaders of one epoch, or a stale one
//	voter-change-lost    per change a voter change Kafka answered NONE that
//	                                a later sample contradicts (a removal
//	                                auto-join may explain: unknown)
//	metadata-unavailable per window changes failing: not counted
//
// An ok send without an offset (acks=0) has an unknown outcome, like info.
// An info send may or may not be in the log: neither is flagged.
//
// # Verdict
//
// false: lost-write, offset-reuse, aborted-read, unexpected, poll-skip,
// nonmonotonic-poll, nonlinearizable, or a txn anomaly other than G0
// (Kafka does not isolate concurrent txns' writes, see package txncheck),
// lost-by-commit, commit-backwards, commit-lost, and redelivery and
// delivery-outside-assignment under a declared exactly-once;
// duplicate and nonmonotonic-send too
// when the producer was idempotent (Options.Idempotent; CheckPath reads it
// from run.json, a bare history is from a non-idempotent producer).
// "unknown": otherwise, if there are unseen sends, a partition that was sent
// to has no completed final read, porcupine ran out of time, or nothing was
// sent. true: otherwise.
//
// # Extensions to the contract
//
//   - nonlinearizable (counted per topic-partition): porcupine found no
//     linearization of the partition's log (model and what it adds in
//     package logmodel). It makes the verdict false. Large histories are
//     checked in windows of offsets, and porcupine runs on time ranks
//     rather than times; package logmodel says why neither hides a violation.
//   - A send recorded as fail with NOT_ENOUGH_REPLICAS_AFTER_APPEND or a
//     timeout is taken as info: the contract says such a send is info, so
//     the label is the workload's mistake, not Kafka's. Stats count them.
//   - A partition is judged by its completed final read invoked last. A
//     send acked at or after that read's invoke and absent from it is
//     unseen (unknown), never lost: the read may have passed its offset
//     before it landed. A send acked below the read's log start offset is
//     not lost either (retention).
//   - Final reads that ended info or fail keep their records as evidence
//     (offset-reuse, aborted-read, unexpected, porcupine reads); they prove
//     no loss.
//   - Bad input (exit 254, naming line and field): the required fields and
//     impossible values listed in docs/HISTORY.md ("Rules the checker holds
//     to"); with Options.Topic/Partitions (from run.json), other topics and
//     partitions. Unknown client f: ignored, counted, said in reasons
//     (txn is analysed).
//   - Partitions holding txn writes or read_committed reads are left out
//     of porcupine (it does not model transactions): said in reasons and
//     stats.txns, never a reason for "unknown".
//   - Reads are attributed to the send that explains them (explainer), so a
//     value re-sent after a failure is judged by the send that wrote it.
//   - The verdict rule is declared by the domains (domains.go: each
//     anomaly's name, unit and rule, package anomaly) and read through
//     CountsAgainst (Result.Against, Result.Counted) and
//     Verdict.ExitCode; report and CLI read them.
//   - Determinism: partitions are numbered in file order (map-keyed fields
//     in sorted order), so results.json and the summary are byte-identical
//     for the same input.
//   - A final read still open when the history ends did not complete; other
//     open client ops end info, as in Jepsen.
//
// # results.json
//
//	{"valid": true | false | "unknown",
//	 "anomalies": {NAME: [entry, ...]},        present when non-empty
//	 "counts": {NAME: n},                      present when non-empty
//	 "stats": {events, client_ops, duration_s, ops{f{type n}}, errors{e n},
//	           sends{ok, ok_without_offset, fail, info, reclassified_as_info},
//	           partitions{"T-P": {sends, records_polled, final_read,
//	             unavailable[{from_s, to_s, duration_s, cause, open, errors}],
//	             unavailable_s, leadership[{at_s, leader, leader_epoch, isr,
//	             elr, last_known_elr, high_watermark, election}]}},
//	           recovery[{fault, recovered_s{"T-P": s}, not_recovered}],
//	           final_reads_not_completed, truncated_line,
//	           txns{ok, fail, info, sends, poll_records, not_linearized,
//	                ww_edges, wr_edges},
//	           groups{groups, members, processes, rebalances, commits,
//	                  delivered, redelivered, lost_by_commit, unassigned_s},
//	           shares{deliveries, records, acks{"STATUS OUTCOME" n},
//	                  redeliveries_by_cause, acks_of_final_records}},
//	 "reasons": ["lost-write: 39", ...],          why not true, and notes
//	 "explanations": [{kind, topic, partition, first_offset, last_offset,
//	                   count, offsets, values, acked_s, isr_at_ack,
//	                   leader_at_ack, leader_epoch_at_ack, fault_before,
//	                   faults_after, elections, took_over, now_hold, log_end,
//	                   text}],
//	 "linearizable": {"result": "ok|illegal|unknown|skipped", window_offsets,
//	                  "partitions": {"T-P": {result, ops, windows,
//	                                         illegal_windows, visualization}}},
//	 "producer_idempotent": bool}
//
// Entries name their records, offsets, brokers, leader epochs and faults
// where the history knows them: see the entry types in result.go.
package checker
