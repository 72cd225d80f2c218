// Package synth generates histories of a correct Kafka for tests and
// benchmarks: the checker's own (BenchmarkCheck1M, its synthetic tests)
// and those of the packages above it that time a whole check (the
// report's BenchmarkCheckCommandVsPython runs `kchaos check` on the same
// 1M-op history as the checker's BenchmarkCheckVsPython). It is not test
// code only so that those packages can import it; nothing else does.
package synth

import (
	"bufio"
	"io"
	"math/rand"
	"strconv"
)

// Config shapes a generated history. The generator simulates a correct
// Kafka: every send is appended at one instant inside its interval (at its
// completion), offsets are handed out in append order, polls read what was
// appended before they complete, and the final read sees the whole log. So
// a checker must find nothing in what it writes, except what the knobs put in.
type Config struct {
	Ops        int     // client ops (send + poll), final reads not counted
	Partitions int     // of one topic
	Workers    int     // concurrent clients; a quarter of them consume
	Seed       int64   //
	InfoRate   float64 // sends ending info (half of them appended anyway)
	FailRate   float64 // sends ending fail (never appended)
	PollMax    int     // records per partition per poll
	// LoseTail, if > 0, drops the last LoseTail acked records of partition 0
	// from the final read: lost writes on purpose.
	LoseTail int
}

type synthOp struct {
	pid       int
	f         string
	partition int
	value     string
}

type synthWriter struct {
	w     *bufio.Writer
	index int64
	time  int64
	buf   []byte
}

func (s *synthWriter) begin(pid int, typ, f string) {
	b := s.buf[:0]
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, s.index, 10)
	b = append(b, `,"time":`...)
	b = strconv.AppendInt(b, s.time, 10)
	b = append(b, `,"process":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"type":"`...)
	b = append(b, typ...)
	b = append(b, `","f":"`...)
	b = append(b, f...)
	b = append(b, `","value":`...)
	s.buf = b
	s.index++
}

func (s *synthWriter) end(errText string) {
	if errText != "" {
		s.buf = append(s.buf, `,"error":"`...)
		s.buf = append(s.buf, errText...)
		s.buf = append(s.buf, '"')
	}
	s.buf = append(s.buf, "}\n"...)
	s.w.Write(s.buf)
}

// Write writes a generated history and returns the number of lines.
func Write(out io.Writer, cfg Config) int64 {
	if cfg.PollMax == 0 {
		cfg.PollMax = 20
	}
	rng := rand.New(rand.NewSource(cfg.Seed))
	s := &synthWriter{w: bufio.NewWriterSize(out, 1<<20)}
	logs := make([][]string, cfg.Partitions)
	consumers := cfg.Workers / 4
	if consumers < 1 {
		consumers = 1
	}
	pids := make([]int, cfg.Workers)
	for i := range pids {
		pids[i] = i
	}
	nextPid := cfg.Workers
	pending := make([]*synthOp, cfg.Workers)
	pos := make([][]int, cfg.Workers) // consumer positions per partition
	owned := func(w int) []int {
		var ps []int
		for p := 0; p < cfg.Partitions; p++ {
			if p%consumers == w-(cfg.Workers-consumers) {
				ps = append(ps, p)
			}
		}
		return ps
	}
	tick := func() { s.time += int64(5000 + rng.Intn(50000)) }
	for w := cfg.Workers - consumers; w < cfg.Workers; w++ {
		pos[w] = make([]int, cfg.Partitions)
		s.begin(pids[w], "invoke", "assign")
		s.buf = appendAssign(s.buf, owned(w))
		s.end("")
		tick()
		s.begin(pids[w], "ok", "assign")
		s.buf = appendAssign(s.buf, owned(w))
		s.end("")
	}
	started, open, value := 0, 0, 0
	for started < cfg.Ops || open > 0 {
		tick()
		if s.index%4000 == 0 {
			s.observe(logs)
			s.nemesis(rng)
		}
		w := rng.Intn(cfg.Workers)
		op := pending[w]
		if op == nil {
			if started == cfg.Ops {
				continue
			}
			started++
			open++
			if w >= cfg.Workers-consumers {
				op = &synthOp{pid: pids[w], f: "poll"}
				s.begin(op.pid, "invoke", "poll")
				s.buf = appendReadReq(s.buf, owned(w), false)
			} else {
				op = &synthOp{pid: pids[w], f: "send", partition: rng.Intn(cfg.Partitions), value: "v" + strconv.Itoa(value)}
				value++
				s.begin(op.pid, "invoke", "send")
				s.buf = appendSend(s.buf, op.partition, op.value, -1)
			}
			s.end("")
			pending[w] = op
			continue
		}
		if rng.Intn(2) == 0 {
			continue // let ops overlap
		}
		pending[w] = nil
		open--
		if op.f == "poll" {
			s.begin(op.pid, "ok", "poll")
			s.buf = append(s.buf, `{"topic":"t","records":[`...)
			first := true
			for _, p := range owned(w) {
				for n := 0; pos[w][p] < len(logs[p]) && n < cfg.PollMax; n++ {
					o := pos[w][p]
					s.buf, first = appendRecord(s.buf, first, p, o, logs[p][o]), false
					pos[w][p]++
					if rng.Intn(cfg.PollMax) == 0 {
						break
					}
				}
			}
			s.buf = append(s.buf, "]}"...)
			s.end("")
			continue
		}
		r := rng.Float64()
		switch {
		case r < cfg.FailRate:
			s.begin(op.pid, "fail", "send")
			s.buf = appendSend(s.buf, op.partition, op.value, -1)
			s.end("NOT_ENOUGH_REPLICAS")
		case r < cfg.FailRate+cfg.InfoRate:
			if rng.Intn(2) == 0 {
				logs[op.partition] = append(logs[op.partition], op.value)
			}
			s.begin(op.pid, "info", "send")
			s.buf = appendSend(s.buf, op.partition, op.value, -1)
			s.end("timeout")
			pids[w] = nextPid
			nextPid++
		default:
			o := len(logs[op.partition])
			logs[op.partition] = append(logs[op.partition], op.value)
			s.begin(op.pid, "ok", "send")
			s.buf = appendSend(s.buf, op.partition, op.value, o)
			s.end("")
		}
	}
	s.observe(logs)
	for p := range logs {
		tick()
		pid := nextPid
		nextPid++
		s.begin(pid, "invoke", "final-read")
		s.buf = appendReadReq(s.buf, []int{p}, true)
		s.end("")
		tick()
		s.begin(pid, "ok", "final-read")
		s.buf = append(s.buf, `{"topic":"t","records":[`...)
		keep := len(logs[p])
		if p == 0 && cfg.LoseTail > 0 && cfg.LoseTail <= keep {
			keep -= cfg.LoseTail
		}
		for o := 0; o < keep; o++ {
			s.buf = appendRecord(s.buf, o == 0, p, o, logs[p][o])
		}
		s.buf = append(s.buf, `],"end_offsets":{"`...)
		s.buf = strconv.AppendInt(s.buf, int64(p), 10)
		s.buf = append(s.buf, `":`...)
		s.buf = strconv.AppendInt(s.buf, int64(keep), 10)
		s.buf = append(s.buf, "}}"...)
		s.end("")
	}
	s.w.Flush()
	return s.index
}

func (s *synthWriter) observe(logs [][]string) {
	for p := range logs {
		s.begin(-2, "ok", "observe")
		s.buf = append(s.buf, `{"topic":"t","partition":`...)
		s.buf = strconv.AppendInt(s.buf, int64(p), 10)
		s.buf = append(s.buf, `,"leader":`...)
		s.buf = strconv.AppendInt(s.buf, int64(p%3), 10)
		s.buf = append(s.buf, `,"leader_epoch":1,"isr":[0,1,2],"elr":[],"last_known_elr":[],"high_watermark":`...)
		s.buf = strconv.AppendInt(s.buf, int64(len(logs[p])), 10)
		s.buf = append(s.buf, '}')
		s.end("")
	}
}

// nemesis adds a pause/resume pair: faults that lose nothing.
func (s *synthWriter) nemesis(rng *rand.Rand) {
	node := strconv.Itoa(rng.Intn(3))
	for _, f := range []string{"pause", "resume"} {
		for _, typ := range []string{"invoke", "ok"} {
			s.begin(-1, typ, f)
			s.buf = append(s.buf, `{"fault":"`+f+`","nodes":[`+node+`]}`...)
			s.end("")
		}
	}
}

func appendSend(b []byte, p int, v string, offset int) []byte {
	b = append(b, `{"topic":"t","partition":`...)
	b = strconv.AppendInt(b, int64(p), 10)
	b = append(b, `,"value":"`...)
	b = append(b, v...)
	b = append(b, '"')
	if offset >= 0 {
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, int64(offset), 10)
	}
	return append(b, '}')
}

func appendReadReq(b []byte, ps []int, from bool) []byte {
	b = append(b, `{"topic":"t","partitions":[`...)
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(p), 10)
	}
	b = append(b, ']')
	if from {
		b = append(b, `,"from":0`...)
	}
	return append(b, '}')
}

func appendAssign(b []byte, ps []int) []byte {
	b = appendReadReq(b, ps, false)
	b = b[:len(b)-1]
	b = append(b, `,"offsets":{`...)
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendInt(b, int64(p), 10)
		b = append(b, `":0`...)
	}
	return append(b, "}}"...)
}

func appendRecord(b []byte, first bool, p, o int, v string) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, `{"partition":`...)
	b = strconv.AppendInt(b, int64(p), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(o), 10)
	b = append(b, `,"value":"`...)
	b = append(b, v...)
	return append(b, `","leader_epoch":1}`...)
}
