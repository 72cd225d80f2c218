package histories

// Share groups (KIP-932, "queues for Kafka"; extension of v1,
// docs/HISTORY.md "Share groups").
//
// A share-group member is a client process like any other: one op open
// at a time, an invoke and one completion, a new process after an info.
// Its ops are:
//
//   - share-subscribe: the member's client joins share group G on topic T.
//     The invoke carries what the checker needs to judge the group without
//     run.json: the acquisition lock duration and the delivery count limit
//     the cluster was configured with (group.share.record.lock.duration.ms,
//     group.share.delivery.count.limit).
//   - share-poll: the member polled; an ok completion lists the records
//     the broker handed it, each with its delivery count (1 on first
//     delivery, one more per redelivery, KIP-932). Each record of an ok
//     share-poll is one delivery: the member holds the record's
//     acquisition lock from then until it acks it, the lock expires, or
//     the member's session ends.
//   - share-ack: the member acknowledged records it was delivered
//     (accept, release, reject, or renew, which only extends the lock:
//     KIP-1222, Kafka 4.2+). The invoke lists them; the completion lists
//     them again, each with its outcome as the broker reported it
//     (franz-go's ShareAckCallback, per partition): ShareOutcomeOK (the
//     broker applied it), ShareOutcomeFail (the broker refused it:
//     INVALID_RECORD_STATE, the member no longer held the lock) or
//     ShareOutcomeInfo (unknown: no answer, or an error that does not say
//     whether it was applied). The op's own type is ok when the client
//     flushed and reported every partition, info otherwise; the per-record
//     outcome is what a verdict rests on.
//   - share-offsets: after the drain, the share-partition start offset
//     (SPSO) of each partition as the group coordinator reports it
//     (DescribeShareGroupOffsets, KIP-932): every record below it reached
//     a final state (acknowledged, rejected, or archived at the delivery
//     limit), as far as Kafka is concerned. Drained says whether every
//     record below the log end reached a final state before the drain's
//     bound passed: one the members saw confirmed, or one the start offset
//     passed (Kafka never delivers such a record again, so an ack Kafka
//     applied whose answer was lost could never be confirmed).

// Op names of share-group members.
const (
	FShareSubscribe = "share-subscribe"
	FSharePoll      = "share-poll"
	FShareAck       = "share-ack"
	FShareOffsets   = "share-offsets"
)

// Ack statuses (ShareAck.Status): franz-go's kgo.AckStatus names.
const (
	AckAccept  = "accept"
	AckRelease = "release"
	AckReject  = "reject"
	AckRenew   = "renew"
)

// Ack outcomes (ShareAck.Outcome).
const (
	ShareOutcomeOK   = "ok"
	ShareOutcomeFail = "fail"
	ShareOutcomeInfo = "info"
)

// ShareAckNoResult is an info ack's Error when the member's flush finished
// but the client gave no result for the ack's partition: the ack was
// neither confirmed nor failed, so the application never learns its fate
// (KafkaShareConsumer's commitSync before 4.3 drops acks it cannot send
// that way, KAFKA-20330). The metric share_acks_unanswered counts them.
const ShareAckNoResult = "no ack result for the partition"

// ShareSubscribeValue is a share-subscribe's value (invoke and ok alike).
type ShareSubscribeValue struct {
	Group  string `json:"group"`
	Member string `json:"member"`
	Topic  string `json:"topic"`
	// LockMS is the acquisition lock duration, DeliveryLimit the delivery
	// count limit (Kafka's defaults: 30000 and 5 before 4.2's lower
	// limit; the workload records what it configured).
	LockMS        int64 `json:"lock_ms"`
	DeliveryLimit int32 `json:"delivery_limit"`
}

// ShareRecord is one delivery of an ok share-poll.
type ShareRecord struct {
	Partition     int32  `json:"partition"`
	Offset        int64  `json:"offset"`
	Value         string `json:"value"`
	DeliveryCount int32  `json:"delivery_count"`
}

// SharePollValue is a share-poll's value: the invoke names the member, an
// ok completion adds the records delivered.
type SharePollValue struct {
	Group   string        `json:"group"`
	Member  string        `json:"member"`
	Topic   string        `json:"topic"`
	Records []ShareRecord `json:"records,omitempty"`
}

// ShareAck is one record's acknowledgement: what the member asked, and,
// on the completion, what became of it.
type ShareAck struct {
	Partition     int32  `json:"partition"`
	Offset        int64  `json:"offset"`
	Value         string `json:"value"`
	DeliveryCount int32  `json:"delivery_count"`
	Status        string `json:"status"`
	Outcome       string `json:"outcome,omitempty"`
	Error         string `json:"error,omitempty"`
	// Wire is the broker's answer to the request that carried this ack,
	// read on the member's connection (completion only; nil: no request
	// carried it, or the workload did not read the wire). It is evidence,
	// beside Outcome: franz-go's callback reports one error per partition
	// and makes some up itself, this is what the broker sent.
	Wire *ShareAckWire `json:"wire,omitempty"`
}

// Summary is the answer in a word or two (ShareAckWire.Earlier's form).
func (w *ShareAckWire) Summary() string {
	switch {
	case !w.Answered:
		return "no answer"
	case w.TopError != "":
		return "top-level " + w.TopError
	case w.Error == "":
		return "partition not listed"
	}
	return w.Error
}

// ShareAckWire is one ack's request and the broker's answer to it.
type ShareAckWire struct {
	// Request is the Kafka request that carried the ack:
	// "ShareAcknowledge" or "ShareFetch" (acks piggybacked on a fetch).
	Request      string `json:"request"`
	SessionEpoch int32  `json:"session_epoch"`
	// Answered is false when no response to the request was read (the
	// connection ended first).
	Answered bool `json:"answered"`
	// TopError is the response's top-level error ("" for none); Error is
	// the partition's acknowledge error, "NONE" for error code 0, ""
	// when the response did not list the partition.
	TopError string `json:"top_error,omitempty"`
	Error    string `json:"error,omitempty"`
	// Attempts is how many requests carried the ack (the fields above are
	// the last one's): more than one when the client sent it again (a
	// retry after a broken connection), and an earlier one unanswered may
	// have been applied.
	Attempts int `json:"attempts"`
	// Earlier is each earlier request's answer, oldest first: "no answer",
	// "NONE", the partition's error, or "top-level " and the response's.
	Earlier []string `json:"earlier,omitempty"`
}

// ShareAckValue is a share-ack's value.
type ShareAckValue struct {
	Group  string     `json:"group"`
	Member string     `json:"member"`
	Topic  string     `json:"topic"`
	Acks   []ShareAck `json:"acks"`
}

// ShareOffsetsValue is a share-offsets' value: the invoke names the group
// and topic; an ok completion adds the start offsets (partition keys as
// strings), the errors of partitions that had none, and whether the drain
// finished.
type ShareOffsetsValue struct {
	Group        string            `json:"group"`
	Topic        string            `json:"topic"`
	StartOffsets map[string]int64  `json:"start_offsets,omitempty"`
	Errors       map[string]string `json:"errors,omitempty"`
	Drained      bool              `json:"drained"`
}

// ShareInfo is run.json's record of the share group (RunInfo.Shares).
type ShareInfo struct {
	Group   string `json:"group"`
	Members int    `json:"members"`
}
