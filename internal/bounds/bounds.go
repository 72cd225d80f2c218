// Package bounds holds every bound kchaos puts on its input, each written
// once: the size of a file it reads, the number of YAML nodes a document
// may expand to, a topic's partitions, a schedule's steps and total time,
// one history line's length, and how much of a value a message echoes.
// Each is checked before anything is sized from the value it bounds, so
// that kchaos validate, run, check and the rest stay within a fixed memory
// budget (Memory) whatever their input. docs/validation.md ("Bounds")
// says why each has its value.
package bounds

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	// Memory is the budget every command that reads input stays under
	// while it reads and refuses it (512 MiB of resident memory): room for
	// one history line at its bound (HistoryLine) and the process itself.
	Memory = 512 << 20

	// InputFile bounds a scenario, suite, hosts or properties file:
	// 512 KiB, some 85 times the largest built-in scenario (6 KB) and 3
	// times a scenario at the other bounds (Steps steps, or an explicit
	// assignment of Partitions partitions). Parsing YAML costs up to 100
	// bytes of memory and a microsecond per byte.
	InputFile = 512 << 10

	// YAMLNodes bounds the nodes of one YAML document with every alias
	// expanded (an anchor used 200,000 times counts 200,000 times): twice
	// what the largest legitimate scenario holds (Partitions partitions
	// with an explicit assignment of replication factor 5 is 60,000).
	YAMLNodes = 120_000

	// Partitions bounds topic.partitions and workload.partitions: far
	// above what a test cluster of at most 9 brokers serves, and the
	// number the harness sizes per-partition state by.
	Partitions = 10_000

	// Steps bounds nemesis.steps: a step every minute for a week; the
	// built-in scenarios have at most a few dozen, a shrunk explore repro
	// fewer.
	Steps = 10_000

	// Duration bounds every duration a scenario gives (a wait, a timeout,
	// the workload's length): a week. Anything longer is a typo (876000h,
	// a unit left off) that would hold a cluster until someone noticed.
	Duration = 7 * 24 * time.Hour

	// Schedule bounds the time a scenario's steps may hold a cluster in
	// all (their waits and timeouts added up): a week, as each one alone,
	// so that two waits of 168h are refused as one of 336h is.
	Schedule = Duration

	// HistoryLine bounds one line of a history: 256 MiB. The longest real
	// line is a final read, one line per partition with every record of
	// it (about 70 bytes a record): 256 MiB holds some 3.8 million records
	// of one partition, five minutes of franz-go's pipelined rate here
	// (11,700 acked sends/s, docs/measured/performance.md) into a single
	// partition, and more than the checker judges in comfort on this
	// machine (a million ops take about 560 MB). 64 MiB was too tight: a
	// two-minute unlimited run into one partition writes a longer line,
	// which kchaos would then refuse as its own history. The Reader holds
	// at most this much of a line, never more.
	HistoryLine = 256 << 20

	// Echo is how much of a value a message quotes.
	Echo = 80
)

// Cut is s as a message echoes it: whole up to Echo bytes, else its
// first Echo bytes (whole characters), "…" and its length.
func Cut(s string) string {
	if len(s) <= Echo {
		return s
	}
	n := Echo
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:n], len(s))
}

// CutWords cuts every word (a run without blanks) of msg longer than 4
// times Echo (a long path stays whole) to Echo, and every line longer
// than 16 times Echo: the last guard before a bad input's message is
// printed, for a value some message quoted whole.
func CutWords(msg string) string {
	if len(msg) <= 4*Echo {
		return msg
	}
	lines := strings.Split(msg, "\n")
	for i, line := range lines {
		words := strings.Split(line, " ")
		for j, w := range words {
			if len(w) > 4*Echo {
				words[j] = Cut(w)
			}
		}
		line = strings.Join(words, " ")
		if len(line) > 16*Echo {
			n := 16 * Echo
			for n > 0 && !utf8.RuneStart(line[n]) {
				n--
			}
			line = fmt.Sprintf("%s… (%d bytes)", line[:n], len(line))
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

// ErrTooLarge is a file over its bound.
var ErrTooLarge = errors.New("too large")

// ReadFile reads a file of at most max bytes. A larger one is refused
// (ErrTooLarge, its size named) without reading more than max+1 bytes,
// whatever it is (a regular file, a pipe, a device).
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > max {
		return nil, fmt.Errorf("%w: %d bytes, want at most %s", ErrTooLarge, st.Size(), Size(max))
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w: more than %s", ErrTooLarge, Size(max))
	}
	return b, nil
}

// Size spells a byte count as a bound is written: 1 MiB, 64 MiB.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
