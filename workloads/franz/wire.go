package franz

import (
	"encoding/binary"
	"errors"
	"net"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

// The broker's answers to a share member's acknowledgements, read on the
// member's own connections (its CutDialer's Tap). franz-go's ShareAckCallback
// reports one error per partition per request and makes some errors up
// itself (acks it dropped unsent after a session reset or a cursor move,
// partitions a response omitted); no kgo hook shows a response's content.
// So the member's connections are read as they pass: each
// ShareAcknowledge, and each ShareFetch that carries acks, is decoded with
// kmsg together with its response, and every ack op records, per record,
// the request that carried it and the error code the broker answered
// (histories.ShareAckWire). It only reads: the bytes pass unchanged.

// Kafka API keys of the requests that carry share acks.
const (
	keyShareFetch       = 78
	keyShareAcknowledge = 79
)

// maxWireFrame bounds a frame the tap accepts; a larger length means the
// stream is not what the tap thinks, and it stops reading that connection.
const maxWireFrame = 256 << 20

// wireBatch is one acknowledgement batch of a request.
type wireBatch struct {
	part        int32
	first, last int64
}

// wireExchange is one request that carried acks and, once read, the
// broker's answer.
type wireExchange struct {
	request  string
	version  int16
	epoch    int32
	batches  []wireBatch
	answered bool
	topErr   int16
	partErr  map[int32]int16
}

// ackTap collects a member's exchanges until the member takes them.
type ackTap struct {
	mu sync.Mutex
	ex []*wireExchange
}

// take returns the exchanges seen since the last take and forgets them.
func (t *ackTap) take() []*wireExchange {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.ex
	t.ex = nil
	return out
}

func (t *ackTap) add(e *wireExchange) {
	t.mu.Lock()
	t.ex = append(t.ex, e)
	t.mu.Unlock()
}

func (t *ackTap) answer(e *wireExchange, top int16, parts map[int32]int16) {
	t.mu.Lock()
	e.answered, e.topErr, e.partErr = true, top, parts
	t.mu.Unlock()
}

// wrap returns c reading through the tap.
func (t *ackTap) wrap(c net.Conn) net.Conn {
	tc := &tapConn{Conn: c, tap: t, pending: map[int32]*wireExchange{}}
	tc.out = frames{peek: 8, want: tc.wantRequest, done: tc.request}
	tc.in = frames{peek: 4, want: tc.wantResponse, done: tc.response}
	return tc
}

// tapConn is a connection whose requests and responses the tap reads.
// Writes come from one goroutine and reads from another (franz-go's
// per-connection writer and reader); pending is shared between them.
type tapConn struct {
	net.Conn
	tap     *ackTap
	out, in frames
	mu      sync.Mutex
	pending map[int32]*wireExchange // correlation id -> request awaiting its answer
}

func (c *tapConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.out.feed(p[:n])
	return n, err
}

func (c *tapConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.in.feed(p[:n])
	return n, err
}

// wantRequest keeps a request frame whose api key carries acks.
func (c *tapConn) wantRequest(head []byte) bool {
	k := int16(binary.BigEndian.Uint16(head))
	return k == keyShareFetch || k == keyShareAcknowledge
}

// wantResponse keeps a response frame whose request is pending.
func (c *tapConn) wantResponse(head []byte) bool {
	corr := int32(binary.BigEndian.Uint32(head))
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[corr]
	return ok
}

// request decodes a ShareAcknowledge or ShareFetch request frame
// (request header v2: key, version, correlation id, client id, tags).
func (c *tapConn) request(f []byte) {
	key := int16(binary.BigEndian.Uint16(f))
	ver := int16(binary.BigEndian.Uint16(f[2:]))
	corr := int32(binary.BigEndian.Uint32(f[4:]))
	b := f[8:]
	if len(b) < 2 {
		return
	}
	if n := int16(binary.BigEndian.Uint16(b)); n > 0 {
		if len(b) < 2+int(n) {
			return
		}
		b = b[2+int(n):]
	} else {
		b = b[2:]
	}
	b, err := skipTags(b)
	if err != nil {
		return
	}
	e := &wireExchange{version: ver}
	switch key {
	case keyShareAcknowledge:
		req := kmsg.ShareAcknowledgeRequest{Version: ver}
		if req.ReadFrom(b) != nil {
			return
		}
		e.request, e.epoch = "ShareAcknowledge", req.ShareSessionEpoch
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				for _, ab := range p.AcknowledgementBatches {
					e.batches = append(e.batches, wireBatch{p.Partition, ab.FirstOffset, ab.LastOffset})
				}
			}
		}
	case keyShareFetch:
		req := kmsg.ShareFetchRequest{Version: ver}
		if req.ReadFrom(b) != nil {
			return
		}
		e.request, e.epoch = "ShareFetch", req.ShareSessionEpoch
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				for _, ab := range p.AcknowledgementBatches {
					e.batches = append(e.batches, wireBatch{p.Partition, ab.FirstOffset, ab.LastOffset})
				}
			}
		}
		if len(e.batches) == 0 {
			return // a fetch without acks: not evidence of any ack
		}
	}
	c.mu.Lock()
	c.pending[corr] = e
	c.mu.Unlock()
	c.tap.add(e)
}

// response decodes the answer to a pending request (response header v1:
// correlation id, tags).
func (c *tapConn) response(f []byte) {
	corr := int32(binary.BigEndian.Uint32(f))
	c.mu.Lock()
	e := c.pending[corr]
	delete(c.pending, corr)
	c.mu.Unlock()
	if e == nil {
		return
	}
	ver := e.version
	b, err := skipTags(f[4:])
	if err != nil {
		return
	}
	parts := map[int32]int16{}
	var top int16
	switch e.request {
	case "ShareAcknowledge":
		resp := kmsg.ShareAcknowledgeResponse{Version: ver}
		if resp.ReadFrom(b) != nil {
			return
		}
		top = resp.ErrorCode
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				parts[p.Partition] = p.ErrorCode
			}
		}
	default:
		resp := kmsg.ShareFetchResponse{Version: ver}
		if resp.ReadFrom(b) != nil {
			return
		}
		top = resp.ErrorCode
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				parts[p.Partition] = p.AcknowledgeErrorCode
			}
		}
	}
	c.tap.answer(e, top, parts)
}

var errWireTags = errors.New("bad tagged fields")

// skipTags skips a header's tagged fields (flexible versions).
func skipTags(b []byte) ([]byte, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 {
		return nil, errWireTags
	}
	b = b[w:]
	for range n {
		_, w := binary.Uvarint(b) // tag
		if w <= 0 {
			return nil, errWireTags
		}
		b = b[w:]
		size, w := binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < size {
			return nil, errWireTags
		}
		b = b[w+int(size):]
	}
	return b, nil
}

// frames splits one direction of a Kafka connection into frames (a
// 4-byte length, then that many bytes) as bytes pass, keeping a frame
// only if want says so from its first peek bytes; done gets each kept
// frame without its length. Other frames are skipped without copying.
type frames struct {
	peek   int
	want   func(head []byte) bool
	done   func(frame []byte)
	head   []byte
	body   []byte
	in     bool // inside a frame, past its head
	keep   bool
	left   int
	broken bool
}

func (f *frames) feed(b []byte) {
	for len(b) > 0 && !f.broken {
		if !f.in {
			n := min(4+f.peek-len(f.head), len(b))
			f.head = append(f.head, b[:n]...)
			b = b[n:]
			if len(f.head) < 4+f.peek {
				return
			}
			size := int(binary.BigEndian.Uint32(f.head))
			if size < f.peek || size > maxWireFrame {
				f.broken = true
				return
			}
			f.keep = f.want(f.head[4:])
			f.body = f.body[:0]
			if f.keep {
				f.body = append(f.body, f.head[4:]...)
			}
			f.head = f.head[:0]
			f.in, f.left = true, size-f.peek
		}
		n := min(f.left, len(b))
		if f.keep {
			f.body = append(f.body, b[:n]...)
		}
		b = b[n:]
		f.left -= n
		if f.left == 0 {
			f.in = false
			if f.keep {
				f.done(f.body)
			}
		}
	}
}

// wireFor describes the exchanges whose requests carried the ack of
// partition p offset off, as the history records it: the last one's
// answer and how many there were (nil: none carried it).
func wireFor(ex []*wireExchange, p int32, off int64, tap *ackTap) *histories.ShareAckWire {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	var w *histories.ShareAckWire
	for _, e := range ex {
		if !slices.ContainsFunc(e.batches, func(b wireBatch) bool { return b.part == p && b.first <= off && off <= b.last }) {
			continue
		}
		n, earlier := 1, []string(nil)
		if w != nil {
			n, earlier = w.Attempts+1, append(w.Earlier, w.Summary())
		}
		w = &histories.ShareAckWire{Request: e.request, SessionEpoch: e.epoch, Answered: e.answered, Attempts: n, Earlier: earlier}
		if !e.answered {
			continue
		}
		if e.topErr != 0 {
			w.TopError = workloads.KafkaName(e.topErr)
		}
		if code, ok := e.partErr[p]; ok {
			w.Error = "NONE"
			if code != 0 {
				w.Error = workloads.KafkaName(code)
			}
		}
	}
	return w
}
