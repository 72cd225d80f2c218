package franz

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/histories"
)

// chunkConn is a connection whose writes go nowhere and whose reads come
// from in, at most chunk bytes at a time (how a socket splits frames).
type chunkConn struct {
	net.Conn
	in    *bytes.Reader
	chunk int
}

func (c *chunkConn) Write(p []byte) (int, error) { return len(p), nil }
func (c *chunkConn) Read(p []byte) (int, error) {
	if len(p) > c.chunk {
		p = p[:c.chunk]
	}
	return c.in.Read(p)
}

// wireReq is a request frame as franz-go writes it.
func wireReq(r kmsg.Request, ver int16, corr int32) []byte {
	r.SetVersion(ver)
	b := kmsg.NewRequestFormatter(kmsg.FormatterClientID("kchaos-w1")).AppendRequest(nil, r, corr)
	return b
}

// wireResp is a response frame as a broker writes it (header v1: the
// correlation id and an empty tag section).
func wireResp(r kmsg.Response, ver int16, corr int32) []byte {
	r.SetVersion(ver)
	body := binary.BigEndian.AppendUint32(nil, uint32(corr))
	body = append(body, 0)
	body = r.AppendTo(body)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

func ackReq(epoch int32, part int32, first, last int64) *kmsg.ShareAcknowledgeRequest {
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.ShareSessionEpoch = epoch
	t := kmsg.NewShareAcknowledgeRequestTopic()
	p := kmsg.NewShareAcknowledgeRequestTopicPartition()
	p.Partition = part
	p.AcknowledgementBatches = append(p.AcknowledgementBatches, kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch{
		FirstOffset: first, LastOffset: last, AcknowledgeTypes: []int8{1}})
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

func ackResp(top int16, part int32, code int16) *kmsg.ShareAcknowledgeResponse {
	resp := kmsg.NewPtrShareAcknowledgeResponse()
	resp.ErrorCode = top
	if top == 0 {
		t := kmsg.NewShareAcknowledgeResponseTopic()
		p := kmsg.NewShareAcknowledgeResponseTopicPartition()
		p.Partition, p.ErrorCode = part, code
		t.Partitions = append(t.Partitions, p)
		resp.Topics = append(resp.Topics, t)
	}
	return resp
}

func fetchReq(epoch int32, part int32, acks bool) *kmsg.ShareFetchRequest {
	req := kmsg.NewPtrShareFetchRequest()
	req.ShareSessionEpoch = epoch
	t := kmsg.NewShareFetchRequestTopic()
	p := kmsg.NewShareFetchRequestTopicPartition()
	p.Partition = part
	if acks {
		p.AcknowledgementBatches = append(p.AcknowledgementBatches, kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch{
			FirstOffset: 10, LastOffset: 19, AcknowledgeTypes: []int8{1}})
	}
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

func fetchResp(part int32, code int16) *kmsg.ShareFetchResponse {
	resp := kmsg.NewPtrShareFetchResponse()
	t := kmsg.NewShareFetchResponseTopic()
	p := kmsg.NewShareFetchResponseTopicPartition()
	p.Partition, p.AcknowledgeErrorCode = part, code
	t.Partitions = append(t.Partitions, p)
	resp.Topics = append(resp.Topics, t)
	return resp
}

// TestAckTap: the tap pairs each request that carried acks with the
// broker's answer, however the socket splits the bytes, and names the
// error the broker sent for the ack's partition.
func TestAckTap(t *testing.T) {
	meta := kmsg.NewPtrMetadataRequest()
	metaResp := kmsg.NewPtrMetadataResponse()
	irs := kerr.InvalidRecordState.Code
	epoch := kerr.InvalidShareSessionEpoch.Code
	tests := []struct {
		name    string
		out, in [][]byte // request and response frames, in order
		part    int32
		off     int64
		want    *histories.ShareAckWire
	}{
		{"accepted", [][]byte{wireReq(ackReq(3, 1, 100, 149), 1, 7)}, [][]byte{wireResp(ackResp(0, 1, 0), 1, 7)}, 1, 120,
			&histories.ShareAckWire{Request: "ShareAcknowledge", SessionEpoch: 3, Answered: true, Error: "NONE", Attempts: 1}},
		{"refused", [][]byte{wireReq(ackReq(4, 1, 100, 149), 1, 8)}, [][]byte{wireResp(ackResp(0, 1, irs), 1, 8)}, 1, 100,
			&histories.ShareAckWire{Request: "ShareAcknowledge", SessionEpoch: 4, Answered: true, Error: "INVALID_RECORD_STATE", Attempts: 1}},
		{"top-level error", [][]byte{wireReq(ackReq(9, 0, 5, 5), 1, 2)}, [][]byte{wireResp(ackResp(epoch, 0, 0), 1, 2)}, 0, 5,
			&histories.ShareAckWire{Request: "ShareAcknowledge", SessionEpoch: 9, Answered: true, TopError: "INVALID_SHARE_SESSION_EPOCH", Attempts: 1}},
		{"unanswered", [][]byte{wireReq(ackReq(2, 1, 0, 9), 1, 5)}, nil, 1, 9,
			&histories.ShareAckWire{Request: "ShareAcknowledge", SessionEpoch: 2, Attempts: 1}},
		{"other offset", [][]byte{wireReq(ackReq(2, 1, 0, 9), 1, 5)}, [][]byte{wireResp(ackResp(0, 1, 0), 1, 5)}, 1, 10, nil},
		{"other partition", [][]byte{wireReq(ackReq(2, 1, 0, 9), 1, 5)}, [][]byte{wireResp(ackResp(0, 1, 0), 1, 5)}, 0, 5, nil},
		{"piggybacked on a fetch", [][]byte{wireReq(fetchReq(6, 0, true), 1, 11)}, [][]byte{wireResp(fetchResp(0, irs), 1, 11)}, 0, 15,
			&histories.ShareAckWire{Request: "ShareFetch", SessionEpoch: 6, Answered: true, Error: "INVALID_RECORD_STATE", Attempts: 1}},
		{"fetch without acks", [][]byte{wireReq(fetchReq(6, 0, false), 1, 11)}, [][]byte{wireResp(fetchResp(0, 0), 1, 11)}, 0, 15, nil},
		{"sent again after no answer", [][]byte{wireReq(ackReq(5, 1, 0, 9), 1, 1), wireReq(ackReq(5, 1, 0, 9), 1, 2)},
			[][]byte{wireResp(ackResp(epoch, 1, 0), 1, 2)}, 1, 4,
			&histories.ShareAckWire{Request: "ShareAcknowledge", SessionEpoch: 5, Answered: true, TopError: "INVALID_SHARE_SESSION_EPOCH", Attempts: 2, Earlier: []string{"no answer"}}},
		{"among other requests, the latest answer", [][]byte{wireReq(meta, 12, 1), wireReq(ackReq(1, 1, 0, 9), 1, 2), wireReq(meta, 12, 3), wireReq(ackReq(2, 1, 0, 9), 1, 4)},
			[][]byte{wireResp(metaResp, 12, 1), wireResp(ackResp(0, 1, irs), 1, 2), wireResp(metaResp, 12, 3), wireResp(ackResp(0, 1, 0), 1, 4)}, 1, 3,
			&histories.ShareAckWire{Request: "ShareAcknowledge", SessionEpoch: 2, Answered: true, Error: "NONE", Attempts: 2, Earlier: []string{"INVALID_RECORD_STATE"}}},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 3, 1 << 20} {
			tap := &ackTap{}
			var in bytes.Buffer
			for _, b := range tt.in {
				in.Write(b)
			}
			c := tap.wrap(&chunkConn{in: bytes.NewReader(in.Bytes()), chunk: chunk})
			for _, b := range tt.out {
				for len(b) > 0 { // franz-go writes a request whole; split anyway
					n := min(chunk, len(b))
					if _, err := c.Write(b[:n]); err != nil {
						t.Fatal(err)
					}
					b = b[n:]
				}
			}
			if _, err := io.Copy(io.Discard, c); err != nil {
				t.Fatal(err)
			}
			got := wireFor(tap.take(), tt.part, tt.off, tap)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s, %d-byte reads: got %+v, want %+v", tt.name, chunk, got, tt.want)
			}
		}
	}
}

// TestAckTapStopsOnGarbage: a stream that is not Kafka's framing stops
// the tap (no panic, nothing recorded), and the bytes still pass.
func TestAckTapStopsOnGarbage(t *testing.T) {
	tap := &ackTap{}
	junk := bytes.Repeat([]byte{0xff}, 64)
	c := tap.wrap(&chunkConn{in: bytes.NewReader(junk), chunk: 7})
	if n, err := c.Write(junk); n != len(junk) || err != nil {
		t.Fatalf("write: %d, %v", n, err)
	}
	got, err := io.ReadAll(c)
	if err != nil || !bytes.Equal(got, junk) {
		t.Fatalf("read %d bytes, %v: the tap changed the stream", len(got), err)
	}
	if ex := tap.take(); len(ex) != 0 {
		t.Fatalf("%d exchanges from garbage", len(ex))
	}
}
