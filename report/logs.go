package report

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/brokerlogs"
	"github.com/kchaos/kchaos/checker"
)

// The nodes' own logs, as logs/summary.json counts and marks them
// (package brokerlogs). They corroborate the checker's explanations; they
// never change a verdict.

// logNodeRow is one node's counts.
type logNodeRow struct {
	Node, File          string
	Lines               int
	Warn, Error, Fatal  int
	Markers             string // "truncate 1, divergence 1"
	TopError, TopErrorN string // the most frequent ERROR/FATAL message
}

// markerRow is one marker, for the table, the timeline and explanations.
type markerRow struct {
	ID        string // HTML anchor: "marker-3"
	Name      string
	Node      string // "broker 0", "controller 1000"
	At        string // "36.8 s", or the line's wall time when the run's start is unknown
	T         int64  // ns on the history's clock (valid when HasT)
	HasT      bool
	Partition string
	Fields    string // "offset 5341, leader_epoch 0"
	File      string // logs/broker-0.log
	Line      int
	Text      string
}

// Brief is the marker in one line: "controller 1000 at 36.8 s
// (logs/controller-1000.log line 12): unclean-election orders-0 ...".
func (m markerRow) Brief() string {
	s := fmt.Sprintf("%s at %s (%s line %d): %s", m.Node, m.At, m.File, m.Line, m.Name)
	if m.Partition != "" {
		s += " " + m.Partition
	}
	if m.Fields != "" {
		s += ", " + m.Fields
	}
	return s
}

// markerColors: one per marker name, for the timeline's log lane.
var markerColors = map[string]string{
	brokerlogs.MTruncate: "#e67e22", brokerlogs.MTruncateBelowHW: "#c0392b", brokerlogs.MDivergence: "#d35400",
	brokerlogs.MUncleanElection: "#8e44ad", brokerlogs.MUncleanLeader: "#8e44ad", brokerlogs.MLogDirFailure: "#000",
	brokerlogs.MFenced: "#2471a3", brokerlogs.MUncleanRecovery: "#7f8c8d",
	brokerlogs.MCoordinatorLoadFailed: "#922b21",
}

func markerColor(name string) string {
	if c, ok := markerColors[name]; ok {
		return c
	}
	return "#555"
}

// brokerLogs reads logs/summary.json into rows. A run without one (older
// runs, a backend that keeps no logs) has none and says nothing; a broken
// one is a problem the report names.
func brokerLogs(dir string) ([]logNodeRow, []markerRow, error) {
	s, err := brokerlogs.Read(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var nodes []logNodeRow
	for _, n := range s.Nodes {
		row := logNodeRow{Node: fmt.Sprintf("%s %d", n.Role, n.ID), File: n.File, Lines: n.Lines,
			Warn: n.Warn, Error: n.Error, Fatal: n.Fatal}
		var ms []string
		for _, k := range slices.Sorted(maps.Keys(n.Markers)) {
			ms = append(ms, fmt.Sprintf("%s %d", k, n.Markers[k]))
		}
		row.Markers = strings.Join(ms, ", ")
		if len(n.Errors) > 0 {
			row.TopError, row.TopErrorN = n.Errors[0].Text, strconv.Itoa(n.Errors[0].Count)
		}
		nodes = append(nodes, row)
	}
	var marks []markerRow
	for i, m := range s.Markers {
		row := markerRow{ID: fmt.Sprintf("marker-%d", i+1), Name: m.Name, Node: fmt.Sprintf("%s %d", m.Role, m.Node),
			At: m.Wall, Partition: m.Partition, File: m.File, Line: m.Line, Text: m.Text}
		if m.Time != nil {
			row.T, row.HasT, row.At = *m.Time, true, secs(*m.Time)
		}
		var fs []string
		for _, k := range slices.Sorted(maps.Keys(m.Fields)) {
			fs = append(fs, k+" "+m.Fields[k])
		}
		row.Fields = strings.Join(fs, ", ")
		marks = append(marks, row)
	}
	return nodes, marks, nil
}

// dataMarkers are the markers that speak of a partition's data: what an
// explanation of lost writes or reused offsets may cite.
var dataMarkers = []string{brokerlogs.MUncleanElection, brokerlogs.MUncleanLeader, brokerlogs.MDivergence,
	brokerlogs.MTruncateBelowHW, brokerlogs.MTruncate}

// logsSay picks, for one explanation, the marker of its partition nearest
// the election (or takeover) it names: the controller's line for an
// unclean election at the epoch that took over wins outright; else the
// data marker nearest in time to the takeover, the last election before
// it, or the last ack of the range. nil when the logs say nothing of that
// partition (or the run's clock is unknown).
func logsSay(e checker.Explanation, marks []markerRow) *markerRow {
	name := fmt.Sprintf("%s-%d", e.Topic, e.Partition)
	ref, ok := refTime(e)
	if !ok {
		return nil
	}
	var best *markerRow
	bestD := math.Inf(1)
	for i := range marks {
		m := &marks[i]
		if !m.HasT || !slices.Contains(dataMarkers, m.Name) || !onPartition(m, name, e.Partition) {
			continue
		}
		if e.TookOver != nil && m.Name == brokerlogs.MUncleanElection &&
			strings.Contains(", "+m.Fields+",", fmt.Sprintf(", leader_epoch %d,", e.TookOver.LeaderEpoch)) {
			return m
		}
		if d := math.Abs(float64(m.T - ref)); d < bestD {
			best, bestD = m, d
		}
	}
	return best
}

func onPartition(m *markerRow, name string, p int32) bool {
	if m.Partition != "" {
		return m.Partition == name
	}
	// PartitionChangeBuilder names the topic by id only.
	return m.Name == brokerlogs.MUncleanLeader && strings.Contains(", "+m.Fields+",", fmt.Sprintf(", partition_index %d,", p))
}

// refTime is the time an explanation's loss happened, as the checker
// places it: the takeover, else the last election, else the last ack.
func refTime(e checker.Explanation) (int64, bool) {
	switch {
	case e.TookOver != nil && e.TookOver.SinceS != nil:
		return nanos(*e.TookOver.SinceS), true
	case len(e.Elections) > 0:
		return nanos(e.Elections[len(e.Elections)-1].AtS), true
	case len(e.AckedS) > 0:
		return nanos(slices.Max(e.AckedS)), true
	}
	return 0, false
}

// logLane draws the markers under the fault lane: one row per node whose
// log has a marker within the run, a tick per marker at its time, its
// title the marker and the line it came from.
func (c *canvas) logLane(marks []markerRow) {
	var nodes []string
	for _, m := range marks {
		if m.HasT && m.T >= 0 && m.T <= c.t1 && !slices.Contains(nodes, m.Node) {
			nodes = append(nodes, m.Node)
		}
	}
	slices.Sort(nodes)
	for _, n := range nodes {
		c.text(8, c.y+12, "log: "+n, "start", "lane-head")
		for _, m := range marks {
			if m.Node != n || !m.HasT || m.T < 0 || m.T > c.t1 {
				continue
			}
			c.rect(c.x(m.T)-1.5, c.y+2, 3, laneH-4, markerColor(m.Name), "log-marker", m.Brief()+"\n"+m.Text)
		}
		c.y += laneH
	}
	if len(nodes) > 0 {
		c.y += 6
	}
}
