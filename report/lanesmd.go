package report

import "fmt"

// The share group's and the quorum's sections of report.md (the same
// tables as the page's, lanesHTML).

func mdShares(p func(string, ...any), sv *shareView) {
	if sv == nil {
		return
	}
	p("## Share group %s on %s\n\nAcquisition lock %d ms, delivery limit %d (what the members subscribed with). "+
		"The share anomalies are under Explained anomalies.\n\n", mdText(sv.Group), mdText(sv.Topic), sv.LockMS, sv.Limit)
	p("| member | processes |")
	for _, n := range shareRowNames {
		p(" %s |", n)
	}
	p(" member faults | process ends |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range sv.Members {
		p("| %s | %s |", mdCell(m.Member), mdCell(m.Processes))
		for _, n := range m.N {
			p(" %d |", n)
		}
		p(" %d | %d |\n", m.Faults, m.Ended)
	}
	p("\n### Redeliveries by cause\n\n")
	if len(sv.Causes) == 0 {
		p("No record was delivered again.\n\n")
	} else {
		p("| cause | redeliveries | records | acquisitions no member saw | with a fault between |\n|---|---:|---:|---:|---:|\n")
		for _, c := range sv.Causes {
			p("| %s | %d | %d | %d | %d |\n", mdCell(c.Cause), c.Redeliveries, c.Recs, c.Unseen, c.WithFaults)
		}
		p("\n")
	}
	p("### Share-partition start offsets\n\n")
	if len(sv.Offsets) == 0 {
		p("The group reported no start offsets (no share-offsets completed).\n\n")
		return
	}
	p("| partition | at | start offset | log end then (acked sends) | final read's end | drained | error |\n|---:|---:|---:|---:|---:|---|---|\n")
	for _, o := range sv.Offsets {
		p("| %d | %s | %s | %s | %s | %s | %s |\n", o.Partition, o.At, offsetCell(o.Start), offsetCell(o.LogEnd), o.FinalEnd, o.Drained, mdCell(o.Error))
	}
	p("\n")
}

func mdQuorum(p func(string, ...any), qv *quorumView) {
	if qv == nil {
		return
	}
	p("## KRaft quorum\n\n%d quorum samples with a new state. %s", qv.Samples, qv.NoLeaderText())
	p(".\n\n### Leader changes\n\n")
	if len(qv.Changes) == 0 {
		p("No change of leader or epoch between the samples that named one.\n\n")
	} else {
		for _, c := range qv.Changes {
			p("- %s\n", mdText(c.Text()))
		}
		if qv.MoreChanges > 0 {
			p("- ... and %d more\n", qv.MoreChanges)
		}
		p("\n")
	}
	if len(qv.Voters) > 0 {
		p("### Voters\n\n| voter | max lag | seconds behind | seconds unknown | last lag |\n|---:|---:|---:|---:|---:|\n")
		for _, v := range qv.Voters {
			p("| %d | %d | %.1f | %.1f | %d |\n", v.ID, v.MaxLag, v.LaggingS, v.Unknown, v.Last)
		}
		p("\n")
	}
	if len(qv.Terms) > 0 {
		p("### Leader epochs (checker)\n\n| epoch | leader | first seen | last seen | answered as leader |\n|---:|---:|---:|---:|---|\n")
		for _, t := range qv.Terms {
			p("| %d | %d | %s | %s | %s |\n", t.Epoch, t.Leader, t.First, t.Last, t.Stale)
		}
		p("\n")
	}
}

// offsetCell shows an unknown offset (-1) as empty.
func offsetCell(o int64) string {
	if o < 0 {
		return ""
	}
	return fmt.Sprint(o)
}
