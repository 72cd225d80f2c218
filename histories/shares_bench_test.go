package histories

import (
	"fmt"
	"testing"
)

// shareRound is what one share-group member's round writes: a poll's ok
// completion with n records, the ack's invoke and its completion (each ack
// with its outcome and the broker's answer off the wire).
func shareRound(n int) (SharePollValue, ShareAckValue, ShareAckValue) {
	poll := SharePollValue{Group: "kchaos-share", Member: "s0", Topic: "kchaos"}
	inv := ShareAckValue{Group: poll.Group, Member: poll.Member, Topic: poll.Topic}
	for i := range n {
		v := fmt.Sprintf("p1-%08d", i)
		poll.Records = append(poll.Records, ShareRecord{Partition: int32(i % 3), Offset: int64(100000 + i), Value: v, DeliveryCount: 1})
		inv.Acks = append(inv.Acks, ShareAck{Partition: int32(i % 3), Offset: int64(100000 + i), Value: v, DeliveryCount: 1, Status: AckAccept})
	}
	done := inv
	done.Acks = append([]ShareAck(nil), inv.Acks...)
	for i := range done.Acks {
		done.Acks[i].Outcome = ShareOutcomeOK
		done.Acks[i].Wire = &ShareAckWire{Request: "ShareAcknowledge", SessionEpoch: 3, Answered: true, Error: "NONE", Attempts: 1}
	}
	return poll, inv, done
}

// BenchmarkRecordShareRound measures recording one member's round of 50
// records (the workload's default max_records) to a file: the cost a
// share member pays in its synchronous poll, ack, flush loop
// (BenchmarkShareAccept measures it against a bare consumer on a real
// cluster). Per-record cost is the reported ns/op over 50.
func BenchmarkRecordShareRound(b *testing.B) {
	rec, _ := newFileRecorder(b)
	p := rec.NewProcess()
	poll, inv, done := shareRound(50)
	empty := SharePollValue{Group: poll.Group, Member: poll.Member, Topic: poll.Topic}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rec.Invoke(p, FSharePoll, empty); err != nil {
			b.Fatal(err)
		}
		if _, err := rec.Complete(p, OK, FSharePoll, poll, ""); err != nil {
			b.Fatal(err)
		}
		if _, err := rec.Invoke(p, FShareAck, inv); err != nil {
			b.Fatal(err)
		}
		if _, err := rec.Complete(p, OK, FShareAck, done, ""); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := rec.Close(); err != nil {
		b.Fatal(err)
	}
}
