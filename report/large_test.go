package report

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeLargeRun writes a run folder whose history has about n events: 8
// partitions, 16 producers, an observer sample per partition every 2000
// events, a kill and start of a broker every 100,000 events, and the
// first 2000 acks of partition 3 reported lost. The lines are built by
// hand because encoding/json would make the test slow.
func writeLargeRun(t testing.TB, dir string, n int) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var idx, tm int64
	var buf []byte
	line := func(proc int, typ, fn, value, errText string) {
		buf = buf[:0]
		buf = append(buf, `{"index":`...)
		buf = strconv.AppendInt(buf, idx, 10)
		buf = append(buf, `,"time":`...)
		buf = strconv.AppendInt(buf, tm, 10)
		buf = append(buf, `,"process":`...)
		buf = strconv.AppendInt(buf, int64(proc), 10)
		buf = append(buf, `,"type":"`+typ+`","f":"`+fn+`","value":`+value...)
		if errText != "" {
			buf = append(buf, `,"error":"`+errText+`"`...)
		}
		buf = append(buf, "}\n"...)
		w.Write(buf)
		idx++
	}
	next := make([]int64, 8)
	var lost []string
	for s := 0; int(idx) < n; s++ {
		tm += 1e6 // 1 ms per send: 1M events span about 500 s
		p, proc := s%8, s%16
		v := `{"topic":"big","partition":` + strconv.Itoa(p) + `,"value":"v` + strconv.Itoa(s) + `"`
		line(proc, "invoke", "send", v+"}", "")
		switch {
		case s%997 == 0:
			line(proc, "fail", "send", v+"}", "NOT_ENOUGH_REPLICAS")
		default:
			tm += int64(s%7) * 1e5 // a latency of 0-0.6 ms
			line(proc, "ok", "send", v+`,"offset":`+strconv.FormatInt(next[p], 10)+"}", "")
			if p == 3 && next[p] < 2000 {
				lost = append(lost, fmt.Sprintf(`{"topic":"big","partition":3,"offset":%d,"value":"v%d"}`, next[p], s))
			}
			next[p]++
		}
		if s%1000 == 0 {
			for q := 0; q < 8; q++ {
				leader := strconv.Itoa((s / 50000) % 3)
				line(-2, "ok", "observe", `{"topic":"big","partition":`+strconv.Itoa(q)+`,"leader":`+leader+
					`,"leader_epoch":`+strconv.Itoa(s/50000)+`,"isr":[0,1,2],"elr":[],"last_known_elr":[],"high_watermark":1}`, "")
			}
		}
		if s%50000 == 25000 {
			line(-1, "invoke", "kill", `{"fault":"kill","nodes":[1]}`, "")
			line(-1, "ok", "kill", `{"fault":"kill","nodes":[1]}`, "")
		}
		if s%50000 == 40000 {
			line(-1, "invoke", "start", `{"fault":"start","nodes":[1]}`, "")
			line(-1, "ok", "start", `{"fault":"start","nodes":[1]}`, "")
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	res := `{"valid":false,"counts":{"lost-write":` + strconv.Itoa(len(lost)) + `},"anomalies":{"lost-write":[`
	for i, l := range lost {
		if i > 0 {
			res += ","
		}
		res += l
	}
	os.WriteFile(filepath.Join(dir, ResultsFile), []byte(res+"]}}"), 0o644)
}

// The page of a long history must stay small: bins merge as the history
// grows, so 1M events render about as large as 100k.
func TestLargeHistoryPageIsBounded(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	dir := t.TempDir()
	writeLargeRun(t, dir, n)
	start := time.Now()
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	st, err := os.Stat(filepath.Join(dir, ReportHTML))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d events: report.html %d KiB in %v", n, st.Size()>>10, took)
	if st.Size() > 1500<<10 {
		t.Errorf("report.html is %d KiB, want at most 1500 KiB", st.Size()>>10)
	}
	md := readString(t, filepath.Join(dir, ReportMD))
	for _, want := range []string{"big-3 offsets 0-1999 (2000 offsets)", "| NOT_ENOUGH_REPLICAS |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
