// Package brokerlogs reads the Kafka nodes' own logs that a run folder
// keeps (logs/<role>-<id>.log, copied at teardown): per node it counts
// WARN, ERROR and FATAL lines and finds the Kafka messages that say what
// happened to the data (a log truncated, with its offsets; an unclean
// election, with the new leader and epoch; a log directory that failed; a
// broker fenced), and places each on the run's clock so that a report can
// draw it on the timeline and cite it beside an explanation.
//
// It is a pure function of the files: no Docker, no network, no cluster,
// so the report may use it. What the checker decides never depends on it:
// the logs are corroboration, the history is the evidence.
package brokerlogs

import (
	"regexp"
	"strings"
	"time"
)

// entry is one log event: its first line. Continuation lines (a stack
// trace, the KafkaConfig dump) belong to the entry before them.
type entry struct {
	Line    int // 1-based line number of the entry's first line
	Wall    time.Time
	Level   string // TRACE, DEBUG, INFO, WARN, ERROR, FATAL
	Message string // the message's first line, without the logger suffix
	Logger  string // the logger name (%c), "" when the message spans lines
}

// lineRE is image/log4j2.xml's pattern "[%d] %p %m (%c)%n": %d is
// log4j2's DEFAULT date, "yyyy-MM-dd HH:mm:ss,SSS" in the JVM's zone.
var lineRE = regexp.MustCompile(`^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) (.*)$`)

// loggerRE is the " (logger)" suffix; a message that spans lines has it
// on its last line only.
var loggerRE = regexp.MustCompile(` \(([A-Za-z_$][\w.$]*)\)$`)

// timeLayout is %d's layout in Go's notation.
const timeLayout = "2006-01-02 15:04:05,000"

// parseLine parses one line written with the image's pattern. ok is false
// for any other line: a continuation line, or the entrypoint's own output.
// loc is the zone the JVM wrote in (the image's is UTC).
func parseLine(s string, loc *time.Location) (entry, bool) {
	m := lineRE.FindStringSubmatch(strings.TrimRight(s, "\r"))
	if m == nil {
		return entry{}, false
	}
	t, err := time.ParseInLocation(timeLayout, m[1], loc)
	if err != nil {
		return entry{}, false
	}
	e := entry{Wall: t, Level: m[2], Message: m[3]}
	if lm := loggerRE.FindStringSubmatchIndex(e.Message); lm != nil {
		e.Logger = e.Message[lm[2]:lm[3]]
		e.Message = e.Message[:lm[0]]
	}
	return e, true
}
