package disk

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/kchaos/kchaos/cluster"
)

// Names in a Kafka log dir.
const (
	RecoveryPointFile = "recovery-point-offset-checkpoint"
	cleanShutdownFile = ".kafka_cleanshutdown"
	metadataLogDir    = "__cluster_metadata-0"
)

// ParseCheckpoint parses an offset checkpoint file of Kafka's log dir
// (recovery-point-offset-checkpoint and its siblings): a line `0` (the
// version), a line with the count, then `topic partition offset` lines. It
// returns offsets keyed "topic-partition", the partition dir's name. An
// empty file has no entries, as for Kafka: a broker creates the file at
// start and writes it only log.initial.task.delay.ms later.
func ParseCheckpoint(data []byte) (map[string]int64, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]int64{}, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	next := func() (string, bool) {
		ok := sc.Scan()
		line++
		return strings.TrimSpace(sc.Text()), ok
	}
	v, ok := next()
	if !ok || v != "0" {
		return nil, fmt.Errorf("checkpoint line 1: version %q, want 0", v)
	}
	c, _ := next()
	n, err := strconv.Atoi(c)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("checkpoint line 2: count %q is not a number", c)
	}
	out := make(map[string]int64, n)
	for i := 0; i < n; i++ {
		l, ok := next()
		if !ok {
			return nil, fmt.Errorf("checkpoint: %d entries, want %d", i, n)
		}
		f := strings.Fields(l)
		if len(f) != 3 {
			return nil, fmt.Errorf("checkpoint line %d: %q: want topic partition offset", line, l)
		}
		p, err1 := strconv.ParseInt(f[1], 10, 32)
		o, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || p < 0 {
			return nil, fmt.Errorf("checkpoint line %d: %q: bad partition or offset", line, l)
		}
		out[f[0]+"-"+f[1]] = o
	}
	return out, sc.Err()
}

// Batch is one record batch in a segment file.
type Batch struct {
	Pos, Size              int64 // byte range in the file
	BaseOffset, LastOffset int64
	LeaderEpoch            int32
	// MaxTimestamp is the header's maxTimestamp (ms since the epoch).
	// AppendTime says it is the broker's clock at append (the batch's
	// timestamp type is LogAppendTime, attributes bit 3); otherwise it is
	// the producer's CreateTime.
	MaxTimestamp int64
	AppendTime   bool
}

// v2 record batch header: baseOffset int64, batchLength int32,
// partitionLeaderEpoch int32, magic int8, crc uint32, attributes int16,
// lastOffsetDelta int32, baseTimestamp int64, maxTimestamp int64, ... A
// batch takes 12 + batchLength bytes, and batchLength is at least 49 (the
// header after the length field), so a whole batch always holds the 43
// bytes read here.
const (
	batchHeaderLen   = 43
	minBatchLength   = 49
	batchLogOverhead = 12
	// attrLogAppendTime is the timestamp-type bit of the attributes.
	attrLogAppendTime = 0x08
)

// ScanBatches reads the batch headers of a segment file from the start. It
// stops, without error, at a torn tail (a header or batch running past the
// end, or a zero length from preallocated space): what Kafka's recovery
// would discard. Batches of another magic than 2 are an error, since their
// layout differs and Kafka 4 no longer writes them.
func ScanBatches(r io.ReaderAt, size int64) ([]Batch, error) {
	var out []Batch
	var h [batchHeaderLen]byte
	for pos := int64(0); pos+batchHeaderLen <= size; {
		if _, err := r.ReadAt(h[:], pos); err != nil {
			return out, err
		}
		length := int64(int32(binary.BigEndian.Uint32(h[8:12])))
		n := batchLogOverhead + length
		if length < minBatchLength || pos+n > size {
			break
		}
		if magic := h[16]; magic != 2 {
			return out, fmt.Errorf("batch at byte %d: magic %d, want 2", pos, magic)
		}
		base := int64(binary.BigEndian.Uint64(h[0:8]))
		out = append(out, Batch{Pos: pos, Size: n, BaseOffset: base,
			LastOffset:   base + int64(int32(binary.BigEndian.Uint32(h[23:27]))),
			LeaderEpoch:  int32(binary.BigEndian.Uint32(h[12:16])),
			MaxTimestamp: int64(binary.BigEndian.Uint64(h[35:43])),
			AppendTime:   binary.BigEndian.Uint16(h[21:23])&attrLogAppendTime != 0})
		pos += n
	}
	return out, nil
}

// cutResult is what cutting one partition's log did.
type cutResult struct {
	Partition     string `json:"partition"`
	RecoveryPoint int64  `json:"recovery_point"`
	EndBefore     int64  `json:"log_end_before"` // next offset, from the batches on disk
	EndAfter      int64  `json:"log_end_after"`
	BytesCut      int64  `json:"bytes_cut"`
	// SplitBatch: a batch spanned the recovery point and was dropped whole
	// (a batch is written, flushed and lost as a unit).
	SplitBatch   bool `json:"split_batch,omitempty"`
	FilesDeleted int  `json:"files_deleted"`
	// The writeback model only: WritebackPoint is where it cut (at or
	// above the recovery point: what the kernel had written back is
	// kept), NoAppendTime the batches it could not date (CreateTime).
	WritebackPoint *int64 `json:"writeback_point,omitempty"`
	NoAppendTime   int    `json:"batches_without_append_time,omitempty"`
}

// cut reports whether anything was lost.
func (r cutResult) cut() bool { return r.EndAfter < r.EndBefore || r.BytesCut > 0 }

type segment struct {
	base int64
	path string
	size int64
}

// segments lists a partition dir's segment files in offset order; names
// are the dir's entries, so that later steps need no second listing.
func segments(ctx context.Context, files cluster.LogFiles, dir string) ([]segment, []cluster.FileInfo, error) {
	entries, err := files.List(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	var out []segment
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name, ".log")
		if e.Dir || !ok {
			continue
		}
		b, err := strconv.ParseInt(stem, 10, 64)
		if err != nil {
			continue
		}
		out = append(out, segment{base: b, path: path.Join(dir, e.Name), size: e.Size})
	}
	slices.SortFunc(out, func(a, b segment) int { return cmp.Compare(a.base, b.base) })
	return out, entries, nil
}

// scanFile reads a segment and its batch headers. The whole file is read
// (at most log.segment.bytes): LogFiles has no random access, so that a
// backend needs only whole-file reads.
func scanFile(ctx context.Context, files cluster.LogFiles, p string) ([]Batch, int64, error) {
	data, err := files.ReadFile(ctx, p)
	if err != nil {
		return nil, 0, err
	}
	b, err := ScanBatches(bytes.NewReader(data), int64(len(data)))
	return b, int64(len(data)), err
}

// cutLog cuts one partition dir (a path relative to the log dir) back to
// recovery point rp, as a power loss would leave it if nothing past the
// last flush reached the disk: in the segment holding rp it keeps the
// batches that end below rp and truncates the rest at that batch
// boundary; it deletes that segment's offset and time indexes (Kafka
// rebuilds them), every later segment with all its files, and every
// producer-state snapshot (Kafka rebuilds producer state from the log).
func cutLog(ctx context.Context, files cluster.LogFiles, dir string, rp int64) (cutResult, error) {
	res := cutResult{Partition: path.Base(dir), RecoveryPoint: rp}
	segs, entries, err := segments(ctx, files, dir)
	if err != nil || len(segs) == 0 {
		return res, err
	}
	res.EndBefore = segs[len(segs)-1].base
	for i := len(segs) - 1; i >= 0; i-- {
		b, _, err := scanFile(ctx, files, segs[i].path)
		if err != nil {
			return res, err
		}
		if len(b) > 0 {
			res.EndBefore = b[len(b)-1].LastOffset + 1
			break
		}
	}
	res.EndAfter = res.EndBefore
	if rp >= res.EndBefore {
		return res, nil // everything on disk was flushed
	}
	idx := 0
	for i, s := range segs {
		if s.base <= rp {
			idx = i
		}
	}
	batches, size, err := scanFile(ctx, files, segs[idx].path)
	if err != nil {
		return res, err
	}
	keep, next := int64(0), segs[idx].base
	for _, b := range batches {
		if b.LastOffset >= rp {
			res.SplitBatch = b.BaseOffset < rp
			break
		}
		keep, next = b.Pos+b.Size, b.LastOffset+1
	}
	res.EndAfter = next
	if keep < size {
		if err := files.Truncate(ctx, segs[idx].path, keep); err != nil {
			return res, err
		}
		res.BytesCut += size - keep
	}
	stem := strings.TrimSuffix(path.Base(segs[idx].path), ".log")
	victims := map[string]bool{stem + ".index": true, stem + ".timeindex": true}
	for _, s := range segs[idx+1:] {
		res.BytesCut += s.size
		later := strings.TrimSuffix(path.Base(s.path), ".log") + "."
		for _, e := range entries {
			if !e.Dir && strings.HasPrefix(e.Name, later) {
				victims[e.Name] = true
			}
		}
	}
	for _, e := range entries {
		if !e.Dir && strings.HasSuffix(e.Name, ".snapshot") {
			victims[e.Name] = true
		}
	}
	for _, v := range slices.Sorted(maps.Keys(victims)) {
		err := files.Remove(ctx, path.Join(dir, v))
		if err == nil {
			res.FilesDeleted++
		} else if !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
	}
	return res, nil
}

// cutToRecoveryPoints simulates a power loss on a dead broker's log dir:
// every partition log is cut back to its recovery point (0 when the
// checkpoint does not list it, as Kafka assumes), and the clean-shutdown
// marker is removed so that Kafka recovers as after a crash. It skips the
// KRaft metadata log, which Raft manages and fsyncs itself and which the
// checkpoint does not cover. Results are sorted by partition.
func cutToRecoveryPoints(ctx context.Context, files cluster.LogFiles) ([]cutResult, error) {
	return cutEach(ctx, files, func(dir string, rp int64) (cutResult, error) {
		return cutLog(ctx, files, dir, rp)
	})
}

// isPartitionDir: a live "topic-N" dir, not the metadata log and not one
// being deleted, moved or marked stray (those have suffixes).
func isPartitionDir(name string) bool {
	if name == metadataLogDir {
		return false
	}
	for _, s := range []string{"-delete", "-future", "-stray"} {
		if strings.HasSuffix(name, s) {
			return false
		}
	}
	i := strings.LastIndexByte(name, '-')
	if i <= 0 {
		return false
	}
	_, err := strconv.ParseUint(name[i+1:], 10, 31)
	return err == nil
}
