package checker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// historyFromBytes turns any bytes into a well-formed history (format v1):
// four bytes per step choose a process, what it does (invoke or complete a
// send, txn, poll, final read, assign, or a group op: subscribe, group poll,
// commit, auto commit, rebalance; or a share op: share-subscribe,
// share-poll, share-ack of each status and outcome, share-offsets; a
// share-poll may hand another member's record again while that member's
// ack of it is in flight), partitions, values, offsets and how
// far time moves (often not at all, so events tie). Subscribes may start
// at latest, and may continue the client of the slot's member process
// that an info retired. On the final reader's slot, some steps are a
// voter-set step instead (fuzzVoters, fuzz_voters_test.go: a quorum
// sample, an add-controller or remove-controller, a kill, start or heal).
// Values, offsets and processes are drawn from few, so that values repeat, offsets collide,
// reads see what was and was not sent, and every anomaly can occur. A
// mutated input is still a history the checker must judge, which byte-level
// fuzzing of JSON mostly is not (it is rejected as bad input at once).
func historyFromBytes(data []byte) string {
	var b strings.Builder
	idx, at := 0, int64(0)
	open := map[int]string{} // slot: the f its process invoked
	pid := map[int]int{}     // slot: its process (a new one after an info)
	type sent struct {
		part int
		val  string
	}
	sendOf := map[int]sent{}
	txnOf := map[int][]sent{}    // slot: its open txn's sends
	txnPoll := map[int]bool{}    // slot: its open txn polls first
	txnAbort := map[int]bool{}   // slot: its open txn intends to abort
	member := map[int]bool{}     // process: its subscribe completed ok
	gen := map[int]int{}         // process: its generation
	commitOf := map[int]string{} // slot: its open commit's value
	retired := map[int]int{}     // slot: its member process retired by an info, not yet continued
	contOf := map[int]int{}      // slot: the process its open subscribe continues, -1 none
	shareSub := map[int]bool{}   // process: its share-subscribe completed ok
	type shareDel struct {
		part, off, val, count int
	}
	delivered := map[int][]shareDel{} // process: what its share-polls delivered
	ackOf := map[int]string{}         // slot: its open share-ack's acks
	ackDel := map[int]shareDel{}      // slot: the delivery its open share-ack acks
	voters := newFuzzVoters()         // the voter set the voter-set steps change
	line := func(proc int, typ, f, v string, errText string) {
		fmt.Fprintf(&b, `{"index":%d,"time":%d,"process":%d,"type":"%s","f":"%s"`, idx, at, proc, typ, f)
		if v != "" {
			b.WriteString(`,"value":` + v)
		}
		if errText != "" {
			fmt.Fprintf(&b, `,"error":%q`, errText)
		}
		b.WriteString("}\n")
		idx++
	}
	records := func(rest []byte) (string, map[int]int64) {
		var rs []string
		ends := map[int]int64{}
		for i := 0; i+1 < len(rest) && len(rs) < 6; i += 2 {
			p, off, v := int(rest[i]&1), int64(rest[i]>>1&7), int(rest[i+1]%10)
			rs = append(rs, fmt.Sprintf(`{"partition":%d,"offset":%d,"value":"v%d","leader_epoch":%d}`, p, off, v, rest[i+1]>>6))
			ends[p] = max(ends[p], off+1)
		}
		return "[" + strings.Join(rs, ",") + "]", ends
	}
	endsJSON := func(ends map[int]int64, extra byte) string {
		var e []string
		for p := range 2 {
			if o, ok := ends[p]; ok || extra&(1<<p) != 0 {
				e = append(e, fmt.Sprintf(`"%d":%d`, p, o+int64(extra>>4&1)))
			}
		}
		return "{" + strings.Join(e, ",") + "}"
	}
	// txnEndsJSON, on some final reads, adds what a read_committed read
	// records of its partitions' transactions: high watermarks, last
	// stable offsets (the ends) and, when the two differ, an open
	// transaction holding the last stable offset (a hanging one).
	txnEndsJSON := func(ends map[int]int64, y, z byte, at int64) string {
		if y&0x08 == 0 {
			return ""
		}
		var hws, lsos, open []string
		for p := range 2 {
			o, ok := ends[p]
			if !ok {
				continue
			}
			o += int64(y >> 4 & 1) // the end endsJSON wrote
			hw := o + int64(y>>6)
			hws = append(hws, fmt.Sprintf(`"%d":%d`, p, hw))
			lsos = append(lsos, fmt.Sprintf(`"%d":%d`, p, o))
			if hw > o {
				open = append(open, fmt.Sprintf(`"%d":[{"producer_id":%d,"producer_epoch":1,"coordinator_epoch":0,"first_offset":%d,"last_timestamp":1,"open_ms":%d,"described_at":%d,"timeout_ms":%d,"hanging":true}]`,
					p, z%3, o, int64(z)*1000, at, int64(z%4)*1000))
			}
		}
		out := `,"high_watermarks":{` + strings.Join(hws, ",") + `},"last_stable_offsets":{` + strings.Join(lsos, ",") + "}"
		if len(open) > 0 {
			out += `,"open_txns":{` + strings.Join(open, ",") + "}"
		}
		return out
	}
	for len(data) >= 4 {
		op, x, y, z := data[0], data[1], data[2], data[3]
		data = data[4:]
		at += int64(z % 3)
		slot := int(op % 6)
		if slot == 5 {
			slot = 9 // the final reader
		}
		if _, ok := pid[slot]; !ok {
			pid[slot] = slot
		}
		proc := pid[slot]
		info := func() {
			// A process whose op ended info never invokes again; a
			// member's client may go on in the next one (continues).
			if member[proc] {
				retired[slot] = proc
			}
			pid[slot] += 10
			line(proc, "info", open[slot], "", "REQUEST_TIMED_OUT")
		}
		part := int(x & 1)
		if f, ok := open[slot]; ok {
			switch s := sendOf[slot]; f {
			case "send":
				switch x >> 1 % 5 {
				case 0, 1:
					line(proc, "ok", "send", ackV(s.part, s.val, int64(y%8)), "")
				case 2:
					line(proc, "ok", "send", sendV(s.part, s.val), "")
				case 3:
					line(proc, "fail", "send", sendV(s.part, s.val), "NOT_ENOUGH_REPLICAS")
				default:
					info()
				}
			case "poll", "final-read":
				if x>>5 == 7 {
					info() // a final read that ended info: no records, no proof
					break
				}
				typ := "ok"
				if x>>4&1 == 1 && f == "final-read" {
					typ = "fail"
				}
				rs, ends := records(data[:min(len(data), int(y%13))])
				if f == "poll" {
					line(proc, typ, f, fmt.Sprintf(`{"topic":"t","records":%s}`, rs), "")
				} else {
					line(proc, typ, f, fmt.Sprintf(`{"topic":"t","records":%s,"end_offsets":%s%s}`, rs, endsJSON(ends, y), txnEndsJSON(ends, y, z, at)), "")
				}
			case "txn":
				typ := []string{"ok", "fail", "info", "ok"}[x>>1&3]
				if typ == "ok" && txnAbort[slot] {
					typ = "fail" // ok means committed
				}
				if typ == "info" {
					pid[slot] += 10
				}
				var ops []string
				if txnPoll[slot] {
					rs, _ := records(data[:min(len(data), int(y%7))])
					ops = append(ops, fmt.Sprintf(`{"f":"poll","topic":"t","partitions":[0,1],"records":%s}`, rs))
				}
				for i, sd := range txnOf[slot] {
					off := ""
					if x>>3&1 == 0 {
						off = fmt.Sprintf(`,"offset":%d`, int64(y>>(3*i)&7))
					}
					ops = append(ops, fmt.Sprintf(`{"f":"send","topic":"t","partition":%d,"value":%q%s}`, sd.part, sd.val, off))
				}
				end := ""
				if x>>4&1 == 1 {
					end = fmt.Sprintf(`,"end_invoked":%d`, at)
				}
				intent := "commit"
				if txnAbort[slot] {
					intent = "abort"
				}
				line(proc, typ, "txn", fmt.Sprintf(`{"transactional_id":"tx%d","intent":%q,"ops":[%s]%s}`, slot, intent, strings.Join(ops, ","), end), "")
			case "assign":
				line(proc, []string{"ok", "fail"}[x>>1&1], "assign", fmt.Sprintf(`{"topic":"t","partitions":[%d],"offsets":{"%d":%d}}`, part, part, y%8), "")
			case "subscribe":
				switch x >> 1 % 3 {
				case 0, 1:
					line(proc, "ok", "subscribe", fmt.Sprintf(`{"group":"g","member":"m%d","topic":"t","protocol":"classic","member_id":"id%d"}`, slot, proc), "")
					member[proc] = true
					if from := contOf[slot]; from >= 0 && retired[slot] == from {
						delete(retired, slot) // continued once
					}
				default:
					info()
				}
			case "share-subscribe":
				if x>>1&3 == 3 {
					info()
					break
				}
				line(proc, "ok", f, `{"group":"q","member":"s","topic":"t","lock_ms":30000,"delivery_limit":3}`, "")
				shareSub[proc] = true
			case "share-poll":
				if x>>1&3 == 3 {
					info()
					break
				}
				var rs []string
				// Some polls hand the record another slot's open ack is
				// acking to this member again, one count up: a
				// redelivery inside that ack's window (share-redelivered-
				// after-accept when an accept is then confirmed).
				for _, other := range []int{0, 1, 2, 3, 4, 9} { // in order: the same bytes, the same history
					if d, ok := ackDel[other]; ok && other != slot && z&0x10 != 0 && open[other] == "share-ack" {
						d.count++
						delivered[proc] = append(delivered[proc], d)
						rs = append(rs, fmt.Sprintf(`{"partition":%d,"offset":%d,"value":"v%d","delivery_count":%d}`, d.part, d.off, d.val, d.count))
						break
					}
				}
				for i := 0; i+1 < len(data) && i < int(y%9); i += 2 {
					d := shareDel{int(data[i] & 1), int(data[i] >> 1 & 7), int(data[i+1] % 10), int(data[i+1]>>4) % 5}
					delivered[proc] = append(delivered[proc], d)
					rs = append(rs, fmt.Sprintf(`{"partition":%d,"offset":%d,"value":"v%d","delivery_count":%d}`, d.part, d.off, d.val, d.count))
				}
				line(proc, "ok", f, `{"group":"q","member":"s","topic":"t","records":[`+strings.Join(rs, ",")+`]}`, "")
			case "share-ack":
				switch x >> 1 & 3 {
				case 0, 1:
					line(proc, "ok", f, `{"group":"q","member":"s","topic":"t","acks":[`+strings.ReplaceAll(ackOf[slot], `"status"`, fmt.Sprintf(`"outcome":%q,"status"`, []string{"ok", "fail", "info", "ok"}[y&3]))+`]}`, "")
				case 2:
					line(proc, "fail", f, "", "INVALID_RECORD_STATE")
				default:
					info()
				}
			case "share-offsets":
				line(proc, "ok", f, fmt.Sprintf(`{"group":"q","topic":"t","start_offsets":{"0":%d,"1":%d},"drained":%v}`, y%9, z%9, y&1 == 0), "")
			case "commit":
				switch x >> 1 % 4 {
				case 0, 1:
					line(proc, "ok", "commit", commitOf[slot], "")
				case 2:
					line(proc, "fail", "commit", commitOf[slot], "ILLEGAL_GENERATION")
				default:
					info()
				}
			}
			delete(open, slot)
			continue
		}
		switch {
		case slot == 9 && op>>4 == 15 && x>>6 == 3:
			voters.step(line, at, x, y, z) // no client op: the nemesis's and the observer's
		case slot == 9:
			open[slot] = "final-read"
			line(proc, "invoke", "final-read", `{"topic":"t","partitions":[0,1],"from":0`+fuzzIsolation(y)+`}`, "")
		case op>>4 == 8:
			// A txn of one or two sends (values drawn like sends'), and
			// a poll first when y says so.
			open[slot] = "txn"
			txnOf[slot] = []sent{{part, fmt.Sprintf("v%d", y%10)}}
			if y&0x40 != 0 {
				txnOf[slot] = append(txnOf[slot], sent{part ^ 1, fmt.Sprintf("v%d", y/10%10)})
			}
			txnPoll[slot] = y&0x20 != 0
			intent := "commit"
			if txnAbort[slot] = x>>5&1 == 1; txnAbort[slot] {
				intent = "abort"
			}
			var ops []string
			if txnPoll[slot] {
				ops = append(ops, `{"f":"poll","topic":"t","partitions":[0,1]}`)
			}
			for _, sd := range txnOf[slot] {
				ops = append(ops, sendV(sd.part, sd.val)[:len(sendV(sd.part, sd.val))-1]+`,"f":"send"}`)
			}
			line(proc, "invoke", "txn", fmt.Sprintf(`{"transactional_id":"tx%d","intent":%q,"ops":[%s]}`, slot, intent, strings.Join(ops, ",")), "")
		case op>>4 < 9:
			open[slot] = "send"
			sendOf[slot] = sent{part, fmt.Sprintf("v%d", y%10)}
			line(proc, "invoke", "send", sendV(part, sendOf[slot].val), "")
		case op>>4 < 14:
			open[slot] = "poll"
			line(proc, "invoke", "poll", `{"topic":"t","partitions":[0,1]`+fuzzIsolation(y)+`}`, "")
		case op>>4 == 14:
			open[slot] = "assign"
			line(proc, "invoke", "assign", fmt.Sprintf(`{"topic":"t","partitions":[%d],"offsets":{"%d":%d}}`, part, part, y%8), "")
		case x&0x80 != 0 && !shareSub[proc]:
			open[slot] = "share-subscribe"
			line(proc, "invoke", "share-subscribe", `{"group":"q","member":"s","topic":"t","lock_ms":30000,"delivery_limit":3}`, "")
		case x&0x80 != 0:
			// A share member polls, acks what it was delivered (by
			// status from y), or asks for the start offsets.
			ds := delivered[proc]
			switch {
			case y&0x60 == 0x60:
				open[slot] = "share-offsets"
				line(proc, "invoke", "share-offsets", `{"group":"q","topic":"t"}`, "")
			case y&0x40 != 0 && len(ds) > 0:
				d := ds[int(z)%len(ds)]
				open[slot] = "share-ack"
				ackDel[slot] = d
				ackOf[slot] = fmt.Sprintf(`{"partition":%d,"offset":%d,"value":"v%d","delivery_count":%d,"status":%q}`,
					d.part, d.off, d.val, d.count, []string{"accept", "release", "reject", "renew"}[y>>2&3])
				line(proc, "invoke", "share-ack", `{"group":"q","member":"s","topic":"t","acks":[`+ackOf[slot]+`]}`, "")
			default:
				open[slot] = "share-poll"
				line(proc, "invoke", "share-poll", `{"group":"q","member":"s","topic":"t"}`, "")
			}
		case !member[proc]:
			// Some subscribes start at latest; some go on with the
			// client of the slot's member process that an info retired.
			open[slot] = "subscribe"
			extra := ""
			if y&2 != 0 {
				extra += `,"offset_reset":"latest"`
			}
			contOf[slot] = -1
			if from, ok := retired[slot]; ok && y&1 != 0 {
				contOf[slot] = from
				extra += fmt.Sprintf(`,"continues":%d`, from)
			}
			line(proc, "invoke", "subscribe", fmt.Sprintf(`{"group":"g","member":"m%d","topic":"t","protocol":"classic"%s}`, slot, extra), "")
		default:
			// A member's group op: a poll in its generation, a commit
			// (asked, or made by the client and recorded at once, as an
			// auto commit is), or a rebalance it learned.
			g := fmt.Sprintf(`"group":"g","member_id":"id%d","generation":%d`, proc, gen[proc])
			switch x >> 1 % 4 {
			case 0:
				open[slot] = "poll"
				line(proc, "invoke", "poll", `{"topic":"t","partitions":[0,1],`+g+fuzzIsolation(y)+`}`, "")
			case 1:
				open[slot] = "commit"
				commitOf[slot] = fmt.Sprintf(`{%s,"topic":"t","offsets":{"%d":%d}}`, g, part, y%9)
				line(proc, "invoke", "commit", commitOf[slot], "")
			case 2:
				v := fmt.Sprintf(`{%s,"topic":"t","offsets":{"%d":%d},"auto":true}`, g, part, y%9)
				line(proc, "invoke", "commit", v, "")
				line(proc, []string{"ok", "fail"}[y>>7], "commit", v, "")
			default:
				gen[proc] += int(y>>6) % 2
				v := fmt.Sprintf(`{"group":"g","member_id":"id%d","generation":%d,"topic":"t","assigned":[%d],"revoked":[%d]}`, proc, gen[proc], part, part^1)
				line(proc, "invoke", "rebalance", v, "")
				line(proc, "ok", "rebalance", v, "")
			}
		}
	}
	return b.String()
}

// fuzzIsolation makes one read in two read_committed.
func fuzzIsolation(y byte) string {
	if y&0x80 != 0 {
		return `,"isolation":"read_committed"`
	}
	return ""
}

// FuzzHistory holds the invariants of FuzzCheck on histories made from the
// fuzzer's bytes (historyFromBytes), which are never bad input.
func FuzzHistory(f *testing.F) {
	for _, s := range []string{
		"\x00\x00\x03\x01\x00\x00\x03\x01\x05\x00\x00\x01\x05\x00\x0c\x01\x06\x00\x00\x01",
		"\x00\x00\x01\x00\x01\x00\x02\x00\x00\x02\x00\x00\x01\x00\x01\x01\x05\x00\x00\x00\x05\x00\x04\x00\x00\x01\x02\x03",
		"\x90\x00\x00\x01\x00\x06\x05\x01\x90\x00\x05\x01\xf1\x00\x03\x01\xf1\x00\x03\x01",
		strings.Repeat("\x01\x02\x03\x04\x02\x03\x04\x05\x05\x00\x07\x00", 8),
		// txns: invoked and completed ok, fail and info, with polls,
		// beside plain sends and read_committed reads.
		"\x80\x00\x6b\x01\x80\x10\x5b\x01\x81\x20\xe7\x01\x81\x02\x3f\x01\x86\x00\x61\x01\x86\x04\x09\x01\x05\x00\x80\x01\x05\x00\x0c\x01",
		// a group: sends, subscribes, rebalances, group polls, commits
		// and auto commits of two members, and a final read.
		"\x00\x00\x03\x01\x00\x00\x03\x01\xf1\x00\x00\x01\xf1\x00\x00\x01\xf2\x00\x00\x01\xf2\x00\x00\x01" +
			"\xf1\x06\x40\x01\xf1\x00\x00\x01\xf1\x00\x06\x01\xf1\x02\x02\x01\xf1\x00\x00\x01\xf1\x04\x01\x01" +
			"\xf2\x06\x41\x01\xf2\x04\x00\x01\x05\x00\x0c\x01\x05\x00\x0c\x01",
		// a share group: subscribes, polls, acks of each status and
		// outcome, start offsets, beside sends and a final read.
		"\x00\x00\x03\x01\x00\x00\x03\x01\x06\x00\x05\x01\x06\x00\x05\x01\xf2\x80\x00\x01\xf2\x80\x00\x01\xf2\x80\x08\x01\xf2\x80\x08\x01" +
			"\xf2\x80\x40\x00\xf2\x80\x40\x00\xf2\x80\x44\x01\xf2\x82\x45\x01\xf2\x80\x08\x01\xf2\x80\x08\x01\xf2\x80\x60\x01\xf2\x80\x60\x01" +
			"\x05\x00\x0c\x01\x05\x00\x0c\x01\x06\x02\x13\x01\x00\x04\x25\x01\x00\x06\x37\x01",
		// two share members: m0's accept of offset 0 is in flight while
		// m1's poll is handed offset 0 again (count 2); the accept is
		// confirmed (share-redelivered-after-accept), and its near miss,
		// the same accept refused (a redelivery only).
		"\xf0\x80\x00\x00\xf0\x00\x00\x00\xf1\x80\x00\x00\xf1\x00\x00\x00\xf0\x80\x00\x00\xf0\x00\x02\x00" +
			"\xf0\xb0\x40\x00\xf1\x80\x00\x10\xf1\x00\x00\x10\xf0\x00\x00\x01",
		"\xf0\x80\x00\x00\xf0\x00\x00\x00\xf1\x80\x00\x00\xf1\x00\x00\x00\xf0\x80\x00\x00\xf0\x00\x02\x00" +
			"\xf0\xb0\x40\x00\xf1\x80\x00\x10\xf1\x00\x00\x10\xf0\x00\x01\x01",
		// a group with a latest member and a subscribe that continues a
		// member process retired by an info, rebalances, commits and a
		// final read.
		// voter changes (fuzz_voters_test.go): an add and a removal
		// answered NONE, then samples that contradict both.
		fuzzVotersSeed,
		"\xf2\x04\rV\xf3\x06\xb3/\xf4\x91\x950\xf4\x1aO~\xf4\xa7\xef\xe5\x10\xec`2\xbe\x80D\x83\x1a\x9eE\xdb\x7f\b\xfbd\xe4\xba(\x0f\xf2-/t\xf2\xfa\x87\x9f\xf0\xaa\xa8A\xf2\xf9 \xf2\xf4\x97\xa7\xd6j\xa4\x9a\xaa\xf1\xd6\t\xfc\xfbm\xc6\xf8\xf2\x048\x05\u016eB\x9a",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1024 {
			return
		}
		h := historyFromBytes(data)
		if _, err := checkReader(strings.NewReader(h), Options{PorcupineTimeout: 10 * time.Second}); err != nil {
			t.Fatalf("a well-formed history is bad input: %v\n%s", err, h)
		}
		holdsInvariants(t, []byte(h))
	})
}

// holdsInvariants: what the checker accepts marshals to results.json,
// checking twice gives the same bytes and summary, and a torn last line
// added to a history ending in a newline is dropped: it never turns the
// verdict valid, nor changes it (HISTORY.md, "Torn line").
func holdsInvariants(t *testing.T, data []byte) {
	t.Helper()
	opts := Options{PorcupineTimeout: 10 * time.Second}
	res, err := checkReader(bytes.NewReader(data), opts)
	if err != nil {
		return
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("results do not marshal: %v", err)
	}
	if res.Valid == Valid && len(res.Against) > 0 {
		for _, name := range res.Against {
			if res.Counts[name] > 0 {
				t.Fatalf("valid with %s %d", name, res.Counts[name])
			}
		}
	}
	sum := res.Summary()
	again, err := checkReader(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatalf("second check failed: %v", err)
	}
	if b2, _ := json.Marshal(again); !bytes.Equal(b, b2) || again.Summary() != sum {
		t.Fatalf("not deterministic:\n%s\n%s", b, b2)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' || res.Stats.TruncatedLine != 0 {
		return
	}
	torn, err := checkReader(bytes.NewReader(append(append([]byte(nil), data...), `{"index":`...)), opts)
	if err != nil {
		t.Fatalf("a torn last line made the history bad: %v", err)
	}
	if torn.Valid == Valid && res.Valid != Valid {
		t.Fatalf("a torn last line turned %v into valid", res.Valid)
	}
	if torn.Valid != res.Valid {
		t.Fatalf("a torn last line changed the verdict from %v to %v", res.Valid, torn.Valid)
	}
}
