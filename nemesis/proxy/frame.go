package proxy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxFrameBytes bounds one request or response frame (its 4-byte size
// prefix excluded). Kafka's own socket.request.max.bytes defaults to
// 100 MiB, so a frame above it is not Kafka talking: the proxy closes the
// connection before allocating anything for it.
const maxFrameBytes = 100 << 20

// errFrameTooLarge is why a connection whose peer announced a frame above
// MaxFrameBytes (or a negative size) was closed.
var errFrameTooLarge = errors.New("frame size out of bounds")

// readFrame reads one size-prefixed frame and returns it whole, size
// prefix included, so that an unchanged frame is forwarded by one write.
func readFrame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(size[:]))
	if n < 0 || n > maxFrameBytes {
		return nil, fmt.Errorf("%w: %d bytes", errFrameTooLarge, n)
	}
	frame := make([]byte, 4+int(n))
	copy(frame, size[:])
	if _, err := io.ReadFull(r, frame[4:]); err != nil {
		return nil, err
	}
	return frame, nil
}

// flexibleFrom is, per API key kmsg knows, the first version whose
// request and response use flexible (compact, tagged) encoding;
// math.MaxInt16 when none does. Computed once because kmsg answers it only
// through a message value.
var flexibleFrom [kmsg.MaxKey + 1]int16

// maxVersion is, per API key, the highest version kmsg can decode.
var maxVersion [kmsg.MaxKey + 1]int16

func init() {
	for k := int16(0); k <= kmsg.MaxKey; k++ {
		flexibleFrom[k] = math.MaxInt16
		req := kmsg.RequestForKey(k)
		if req == nil {
			continue
		}
		maxVersion[k] = req.MaxVersion()
		for v := int16(0); v <= req.MaxVersion(); v++ {
			req.SetVersion(v)
			if req.IsFlexible() {
				flexibleFrom[k] = v
				break
			}
		}
	}
}

// knownAPI reports whether kmsg can decode this API at all.
func knownAPI(key int16) bool { return key >= 0 && key <= kmsg.MaxKey }

// isFlexible reports whether a known API's version uses flexible encoding.
func isFlexible(key, version int16) bool {
	return knownAPI(key) && version >= flexibleFrom[key]
}

// responseHeaderFlexible reports whether the response header is v1 (with
// tagged fields). ApiVersions answers with header v0 at every version, so
// that a client that does not yet know the broker's versions can read it.
func responseHeaderFlexible(key, version int16) bool {
	return key != int16(kmsg.ApiVersions) && isFlexible(key, version)
}

// requestHeader is what the proxy reads of a request: the header fields,
// and where the body starts (bodyAt, an offset in the frame; -1 when the
// API is unknown to kmsg and the header's tagged fields cannot be told
// from the body).
type requestHeader struct {
	Key           int16
	Version       int16
	CorrelationID int32
	ClientID      string
	bodyAt        int
}

var errShortFrame = errors.New("frame too short for its header")

// parseRequestHeader reads a request frame's header (size prefix
// included in frame): api key, version, correlation id, client id, and
// for flexible versions the header's tagged fields.
func parseRequestHeader(frame []byte) (requestHeader, error) {
	var h requestHeader
	if len(frame) < 12 {
		return h, errShortFrame
	}
	h.Key = int16(binary.BigEndian.Uint16(frame[4:]))
	h.Version = int16(binary.BigEndian.Uint16(frame[6:]))
	h.CorrelationID = int32(binary.BigEndian.Uint32(frame[8:]))
	at := 12
	if h.Key == int16(kmsg.ControlledShutdown) && h.Version == 0 {
		h.bodyAt = at // header v0: no client id
		return h, nil
	}
	if len(frame) < at+2 {
		return h, errShortFrame
	}
	// The client id is a plain nullable string even in flexible headers.
	n := int(int16(binary.BigEndian.Uint16(frame[at:])))
	at += 2
	if n > 0 {
		if len(frame) < at+n {
			return h, errShortFrame
		}
		h.ClientID = string(frame[at : at+n])
		at += n
	}
	// Where the body starts matters only to decode it: for an API or a
	// version kmsg does not know, or a header whose tags do not parse,
	// the request stays opaque and is forwarded as it came.
	h.bodyAt = -1
	if !knownAPI(h.Key) || h.Version < 0 || h.Version > maxVersion[h.Key] {
		return h, nil
	}
	if isFlexible(h.Key, h.Version) {
		end, err := skipTags(frame, at)
		if err != nil {
			return h, nil
		}
		at = end
	}
	h.bodyAt = at
	return h, nil
}

// responseBodyAt is where a response frame's body starts: after the
// correlation id, and the header's tagged fields when the header is v1.
func responseBodyAt(frame []byte, flexibleHeader bool) (int, error) {
	if len(frame) < 8 {
		return 0, errShortFrame
	}
	if !flexibleHeader {
		return 8, nil
	}
	return skipTags(frame, 8)
}

// skipTags skips a tagged-field section starting at at and returns the
// offset after it.
func skipTags(b []byte, at int) (int, error) {
	count, at, err := uvarint(b, at)
	if err != nil {
		return 0, err
	}
	for i := uint64(0); i < count; i++ {
		if _, at, err = uvarint(b, at); err != nil { // tag
			return 0, err
		}
		var size uint64
		if size, at, err = uvarint(b, at); err != nil {
			return 0, err
		}
		if size > uint64(len(b)-at) {
			return 0, errShortFrame
		}
		at += int(size)
	}
	return at, nil
}

func uvarint(b []byte, at int) (uint64, int, error) {
	if at > len(b) {
		return 0, 0, errShortFrame
	}
	v, n := binary.Uvarint(b[at:])
	if n <= 0 {
		return 0, 0, errShortFrame
	}
	return v, at + n, nil
}

// correlationOfResponse is a response frame's correlation id.
func correlationOfResponse(frame []byte) int32 {
	return int32(binary.BigEndian.Uint32(frame[4:]))
}

// withRequestCorrelation is a copy of a request frame under another
// correlation id (a duplicate the proxy sends on its own account).
func withRequestCorrelation(frame []byte, id int32) []byte {
	dup := append([]byte(nil), frame...)
	binary.BigEndian.PutUint32(dup[8:], uint32(id))
	return dup
}

// responseFrame encodes resp as a complete response frame for
// correlation id corr. headerTags, when the header is v1, are the raw
// tagged fields of the header the response replaces (nil: none).
func responseFrame(corr int32, resp kmsg.Response, flexibleHeader bool, headerTags []byte) []byte {
	out := make([]byte, 8, 64)
	binary.BigEndian.PutUint32(out[4:], uint32(corr))
	if flexibleHeader {
		if len(headerTags) == 0 {
			out = append(out, 0)
		} else {
			out = append(out, headerTags...)
		}
	}
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

// decodeResponse decodes a response frame's body as API key at version;
// the second result is the header's raw tagged fields (for re-encoding).
func decodeResponse(frame []byte, key, version int16) (kmsg.Response, []byte, error) {
	resp := kmsg.ResponseForKey(key)
	if resp == nil {
		return nil, nil, fmt.Errorf("api key %d unknown to kmsg", key)
	}
	resp.SetVersion(version)
	flexHeader := responseHeaderFlexible(key, version)
	at, err := responseBodyAt(frame, flexHeader)
	if err != nil {
		return nil, nil, err
	}
	if err := resp.ReadFrom(frame[at:]); err != nil {
		return nil, nil, fmt.Errorf("decode %s v%d response: %w", apiName(key), version, err)
	}
	var tags []byte
	if flexHeader {
		tags = append([]byte(nil), frame[8:at]...)
	}
	return resp, tags, nil
}

// decodeRequest decodes a request frame's body (h from parseRequestHeader).
func decodeRequest(frame []byte, h requestHeader) (kmsg.Request, error) {
	req := kmsg.RequestForKey(h.Key)
	if req == nil || h.bodyAt < 0 {
		return nil, fmt.Errorf("api key %d unknown to kmsg", h.Key)
	}
	req.SetVersion(h.Version)
	if err := req.ReadFrom(frame[h.bodyAt:]); err != nil {
		return nil, fmt.Errorf("decode %s v%d request: %w", apiName(h.Key), h.Version, err)
	}
	return req, nil
}

// expectsResponse reports whether the broker answers this request: all
// do but a Produce with acks=0, whose acks the proxy reads from the body
// (after the transactional id from v3 on).
func expectsResponse(h requestHeader, frame []byte) bool {
	if h.Key != int16(kmsg.Produce) || h.bodyAt < 0 {
		return true
	}
	at := h.bodyAt
	if h.Version >= 3 {
		if isFlexible(h.Key, h.Version) {
			n, next, err := uvarint(frame, at)
			if err != nil {
				return true
			}
			at = next
			if n > 0 {
				at += int(n - 1)
			}
		} else {
			if len(frame) < at+2 {
				return true
			}
			n := int(int16(binary.BigEndian.Uint16(frame[at:])))
			at += 2
			if n > 0 {
				at += n
			}
		}
	}
	if at < 0 || len(frame) < at+2 {
		return true
	}
	return int16(binary.BigEndian.Uint16(frame[at:])) != 0
}
