package report

// lanesHTML is the share group's and the quorum's sections of the page
// (their lanes are on the timeline: sharesvg.go, quorum.go); report.md
// has the same tables (lanesmd.go).
const lanesHTML = `
{{define "shares"}}{{with .}}<h2>Share group {{.Group}} on {{.Topic}}</h2>
<p>Acquisition lock {{.LockMS}} ms, delivery limit {{.Limit}} (what the members subscribed with). On the timeline, each member's lane shows
what it was handed and what became of its acks (bars per time slice, as tall as the count against the busiest slice of that row), its member faults
as boxes and the ends of its client processes as black ticks; the progress plot shows the log end (grey), the highest offset delivered (blue) and the
share-partition start offsets the group reported (purple). The share anomalies are under Explained anomalies.</p>
<table><tr><th>member</th><th>processes</th>{{range $.RowNames}}<th>{{.}}</th>{{end}}<th>member faults</th><th>process ends</th></tr>
{{range .Members}}<tr><td>{{.Member}}</td><td>{{.Processes}}</td>{{range .N}}<td class="n">{{.}}</td>{{end}}<td class="n">{{.Faults}}</td><td class="n">{{.Ended}}</td></tr>
{{end}}</table>
<h3>Redeliveries by cause</h3>
{{if .Causes}}<table><tr><th>cause</th><th>redeliveries</th><th>records</th><th>acquisitions no member saw</th><th>with a fault between</th></tr>
{{range .Causes}}<tr><td>{{.Cause}}</td><td class="n">{{.Redeliveries}}</td><td class="n">{{.Recs}}</td><td class="n">{{.Unseen}}</td><td class="n">{{.WithFaults}}</td></tr>
{{end}}</table>{{else}}<p>No record was delivered again.</p>{{end}}
<h3>Share-partition start offsets</h3>
{{if .Offsets}}<table><tr><th>partition</th><th>at</th><th>start offset</th><th>log end then (acked sends)</th><th>final read's end</th><th>drained</th><th>error</th></tr>
{{range .Offsets}}<tr><td class="n">{{.Partition}}</td><td class="n">{{.At}}</td><td class="n">{{offset .Start}}</td><td class="n">{{offset .LogEnd}}</td><td class="n">{{.FinalEnd}}</td><td>{{.Drained}}</td><td>{{.Error}}</td></tr>
{{end}}</table>{{else}}<p>The group reported no start offsets (no share-offsets completed).</p>{{end}}{{end}}{{end}}
{{define "quorum"}}{{with .}}<h2>KRaft quorum</h2>
<p>{{.Samples}} quorum samples with a new state. {{.NoLeaderText}}.
On the timeline: the active controller and its epoch as DescribeQuorum answered, a purple dashed mark at each leader change, and each voter's lag behind the leader
(green caught up, yellow behind, grey unknown, no bar while not a voter).</p>
<h3>Leader changes</h3>
{{if .Changes}}<ul>{{range .Changes}}<li>{{.Text}}</li>{{end}}{{if .MoreChanges}}<li>... and {{.MoreChanges}} more</li>{{end}}</ul>{{else}}<p>No change of leader or epoch between the samples that named one.</p>{{end}}
{{if .Voters}}<h3>Voters</h3><table><tr><th>voter</th><th>max lag</th><th>seconds behind</th><th>seconds unknown</th><th>last lag</th></tr>
{{range .Voters}}<tr><td class="n">{{.ID}}</td><td class="n">{{.MaxLag}}</td><td class="n">{{num .LaggingS}}</td><td class="n">{{num .Unknown}}</td><td class="n">{{.Last}}</td></tr>
{{end}}</table>{{end}}
{{if .Terms}}<h3>Leader epochs (checker)</h3><table><tr><th>epoch</th><th>leader</th><th>first seen</th><th>last seen</th><th>answered as leader</th></tr>
{{range .Terms}}<tr><td class="n">{{.Epoch}}</td><td class="n">{{.Leader}}</td><td class="n">{{.First}}</td><td class="n">{{.Last}}</td><td>{{.Stale}}</td></tr>
{{end}}</table>{{end}}{{end}}{{end}}`
