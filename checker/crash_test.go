package checker

import "testing"

// TestCrashedProducerSends: a producer process crashed by the nemesis
// (producer-crash): its sends in flight completed info `crashed`, one of
// them in the log, one not; the successor process's acked sends are all
// read. Nothing the crashed process did not get acked counts as lost or
// read-without-send, and the verdict is valid; an acked send of the
// crashed process, before the crash, that is missing is still lost.
func TestCrashedProducerSends(t *testing.T) {
	crash := ev(2500, -1, "invoke", "producer-crash", `{"fault":"producer-crash"}`)
	crashed := ev(2900, -1, "ok", "producer-crash", `{"fault":"producer-crash","details":{"producer":0,"processes_before":[0],"processes_after":[1]}}`)
	// Process 0 acked one send, then crashed with the next in flight.
	inFlight := cat(
		send(0, 1000, 2000, 0, "p0-000000", "ok", 0),
		one(ev(2100, 0, "invoke", "send", sendV(0, "p0-000001"))),
		one(crash),
		one(ev(2600, 0, "info", "send", sendV(0, "p0-000001"), "crashed")),
		one(crashed),
	)
	h := lines2hist(cat(
		inFlight,
		send(1, 3000, 3100, 0, "p1-000000", "ok", 2),
		final(9, 5000, 5100, []int{0}, map[int]int64{0: 3}, "ok", "0:0:p0-000000", "0:1:p0-000001", "0:2:p1-000000"),
	)...)
	res := mustCheck(t, h, Options{})
	if res.Valid != Valid || len(res.Counts) != 0 {
		t.Errorf("crash with its in-flight send in the log: verdict %v, counts %v, reasons %v", res.Valid, res.Counts, res.Reasons)
	}
	// The in-flight send never reached the log: no anomaly either.
	h = lines2hist(cat(
		inFlight,
		send(1, 3000, 3100, 0, "p1-000000", "ok", 1),
		final(9, 5000, 5100, []int{0}, map[int]int64{0: 2}, "ok", "0:0:p0-000000", "0:1:p1-000000"),
	)...)
	res = mustCheck(t, h, Options{})
	if res.Valid != Valid || len(res.Counts) != 0 {
		t.Errorf("crash with its in-flight send lost: verdict %v, counts %v, reasons %v", res.Valid, res.Counts, res.Reasons)
	}
	// What the crashed process had acked is still owed.
	h = lines2hist(cat(
		send(0, 1000, 2000, 0, "p0-000000", "ok", 0),
		one(crash),
		one(crashed),
		send(1, 3000, 3100, 0, "p1-000000", "ok", 1),
		final(9, 5000, 5100, []int{0}, map[int]int64{0: 2}, "ok", "0:1:p1-000000"),
	)...)
	res = mustCheck(t, h, Options{})
	if res.Counts["lost-write"] != 1 {
		t.Errorf("acked before the crash, missing: counts %v", res.Counts)
	}
}
