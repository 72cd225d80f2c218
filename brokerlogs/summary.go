package brokerlogs

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Dir is the run folder's logs folder and SummaryFile the summary written
// into it.
const (
	Dir         = "logs"
	SummaryFile = "summary.json"
)

// zone is the zone the nodes' JVMs write their log times in: the image
// sets none, so the JVM takes the root file system's /etc/localtime,
// which debootstrap leaves at UTC (a run folder named 104518.650Z has its
// first broker line at 10:45:21).
var zone = time.UTC

// maxText bounds a marker's or an error's quoted message.
const maxText = 400

// Marker is one known message found in a node's log.
type Marker struct {
	Name  string `json:"name"`
	Role  string `json:"role"` // broker or controller: whose log it is
	Node  int32  `json:"node"`
	File  string `json:"file"` // relative to the run folder: logs/broker-0.log
	Line  int    `json:"line"`
	Level string `json:"level"`
	Wall  string `json:"wall"` // the line's own time, as written
	// Time is on the history's clock: ns since the run started (negative
	// before it, e.g. during cluster start); absent when the run's start
	// is unknown (run.json without started).
	Time      *int64            `json:"time,omitempty"`
	Partition string            `json:"partition,omitempty"` // "orders-0"
	Fields    map[string]string `json:"fields,omitempty"`
	Text      string            `json:"text"`
}

// Message is an ERROR or FATAL message and how often it came, with
// numbers masked so that one failure repeated per request counts once.
type Message struct {
	Level string `json:"level"`
	Text  string `json:"text"` // the first occurrence, unmasked
	Count int    `json:"count"`
	Line  int    `json:"line"` // of the first occurrence
	Time  *int64 `json:"time,omitempty"`
}

// Node is one node's log, counted.
type Node struct {
	Role    string         `json:"role"`
	ID      int32          `json:"id"`
	File    string         `json:"file"`
	Lines   int            `json:"lines"`   // log entries (continuation lines not counted)
	Warn    int            `json:"warn"`    // WARN entries
	Error   int            `json:"error"`   // ERROR entries
	Fatal   int            `json:"fatal"`   // FATAL entries
	Markers map[string]int `json:"markers"` // per marker name
	// Errors are the ERROR and FATAL messages, most frequent first (at
	// most maxErrors).
	Errors []Message `json:"errors,omitempty"`
}

// Summary is logs/summary.json.
type Summary struct {
	// Start is the wall-clock time of the history's time zero
	// (run.json's started); zero when unknown.
	Start   time.Time `json:"start,omitzero"`
	Zone    string    `json:"zone"`
	Nodes   []Node    `json:"nodes"`
	Markers []Marker  `json:"markers"` // in time order
}

const maxErrors = 8

var fileRE = regexp.MustCompile(`^(broker|controller)-(\d+)\.log$`)

// scan reads one node's log. file is the name the summary gives it.
func scan(r io.Reader, role string, id int32, file string, start time.Time) (Node, []Marker, error) {
	n := Node{Role: role, ID: id, File: file, Markers: map[string]int{}}
	var markers []Marker
	errs := map[string]*Message{}
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		e, ok := parseLine(sc.Text(), zone)
		if !ok {
			continue
		}
		e.Line = line
		n.Lines++
		var at *int64
		if !start.IsZero() {
			t := int64(e.Wall.Sub(start))
			at = &t
		}
		switch e.Level {
		case "WARN":
			n.Warn++
		case "ERROR":
			n.Error++
		case "FATAL":
			n.Fatal++
		}
		if e.Level == "ERROR" || e.Level == "FATAL" {
			key := e.Level + " " + maskNumbers(e.Message)
			if m, ok := errs[key]; ok {
				m.Count++
			} else {
				errs[key] = &Message{Level: e.Level, Text: clip(e.Message), Count: 1, Line: line, Time: at}
				order = append(order, key)
			}
		}
		name, fields, ok := match(e.Message)
		if !ok {
			continue
		}
		n.Markers[name]++
		mk := Marker{Name: name, Role: role, Node: id, File: file, Line: line, Level: e.Level,
			Wall: e.Wall.Format(timeLayout), Time: at, Fields: fields, Text: clip(e.Message)}
		if p, ok := fields["partition"]; ok {
			mk.Partition = p
			delete(mk.Fields, "partition")
		}
		markers = append(markers, mk)
	}
	if err := sc.Err(); err != nil {
		return n, markers, fmt.Errorf("%s line %d: %w", file, line+1, err)
	}
	for _, k := range order {
		n.Errors = append(n.Errors, *errs[k])
	}
	slices.SortStableFunc(n.Errors, func(a, b Message) int { return cmp.Compare(b.Count, a.Count) })
	if len(n.Errors) > maxErrors {
		n.Errors = n.Errors[:maxErrors]
	}
	return n, markers, nil
}

var numRE = regexp.MustCompile(`\d+`)

func maskNumbers(s string) string { return numRE.ReplaceAllString(s, "N") }

func clip(s string) string {
	if len(s) <= maxText {
		return s
	}
	cut := maxText
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// summarize reads every <role>-<id>.log in runDir's logs folder. Files of
// other names are left alone. start is the history's time zero (zero:
// unknown, markers get no run time).
func summarize(runDir string, start time.Time) (*Summary, error) {
	s := &Summary{Start: start, Zone: zone.String(), Nodes: []Node{}, Markers: []Marker{}}
	entries, err := os.ReadDir(filepath.Join(runDir, Dir))
	if err != nil {
		return nil, err
	}
	for _, d := range entries {
		m := fileRE.FindStringSubmatch(d.Name())
		if d.IsDir() || m == nil {
			continue
		}
		id, err := strconv.ParseInt(m[2], 10, 32)
		if err != nil {
			continue
		}
		f, err := os.Open(filepath.Join(runDir, Dir, d.Name()))
		if err != nil {
			return nil, err
		}
		n, mks, err := scan(f, m[1], int32(id), Dir+"/"+d.Name(), start)
		f.Close()
		if err != nil {
			return nil, err
		}
		s.Nodes = append(s.Nodes, n)
		s.Markers = append(s.Markers, mks...)
	}
	slices.SortFunc(s.Nodes, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(s.Markers, func(a, b Marker) int {
		return cmp.Or(strings.Compare(a.Wall, b.Wall), cmp.Compare(a.Node, b.Node), cmp.Compare(a.Line, b.Line))
	})
	return s, nil
}

// Write summarizes runDir's logs into logs/summary.json and returns the
// summary.
func Write(runDir string, start time.Time) (*Summary, error) {
	s, err := summarize(runDir, start)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return s, os.WriteFile(filepath.Join(runDir, Dir, SummaryFile), append(b, '\n'), 0o644)
}

// Read reads runDir's logs/summary.json.
func Read(runDir string) (*Summary, error) {
	p := filepath.Join(runDir, Dir, SummaryFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	return &s, nil
}
