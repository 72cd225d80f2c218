package java

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kchaos/kchaos/cluster/admin"
	"github.com/kchaos/kchaos/histories"
	"github.com/kchaos/kchaos/workloads"
)

// fakeJVM speaks the java driver's line protocol in place of the JVM, over
// pipes, with a small in-memory log per partition: the Go side of the
// driver is tested without Java, Maven or Kafka. Sends are answered
// asynchronously after a random delay, so answers come out of order as
// the real producer's callbacks do. Hooks script errors.
type fakeJVM struct {
	mu      sync.Mutex
	log     map[int32][]string
	nextH   int
	pos     map[int][]int64 // consumer handle -> position per partition (-1: unassigned)
	out     *json.Encoder
	outMu   sync.Mutex
	stdin   *io.PipeReader
	stdout  *io.PipeWriter
	opened  map[string]map[string]string // last props per open op
	sendErr func(n int, req map[string]any) *JavaError
	sends   int
	polls   int
	// pollHook may answer a poll itself (returning true).
	pollHook func(n int, reply func(map[string]any)) bool
	// hook may answer any request itself (returning true), first.
	hook   func(req map[string]any, reply func(map[string]any)) bool
	closed int
}

// startFakeJVM installs fake as the registry's JVM starter for the test.
func startFakeJVM(t *testing.T, fake *fakeJVM) {
	t.Helper()
	old := javaRegistry.startJVM
	oldLinger := javaLinger
	javaRegistry.startJVM = func(ctx context.Context, _ string) (*jvm, error) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		fake.stdin, fake.stdout = inR, outW
		fake.out = json.NewEncoder(outW)
		go fake.serve()
		return newJVMConn(ctx, inW, outR, &tailBuffer{max: 1024})
	}
	t.Cleanup(func() {
		javaRegistry.Lock()
		for k, j := range javaRegistry.m {
			delete(javaRegistry.m, k)
			_ = j.stdin.Close()
		}
		javaRegistry.startJVM = old
		javaLinger = oldLinger
		javaRegistry.Unlock()
	})
}

func (f *fakeJVM) reply(m map[string]any) {
	f.outMu.Lock()
	defer f.outMu.Unlock()
	_ = f.out.Encode(m)
}

// serve answers requests until stdin closes, then "exits".
func (f *fakeJVM) serve() {
	defer f.stdout.Close()
	f.reply(map[string]any{"id": 0, "ready": true, "version": "9.9.9"})
	sc := bufio.NewScanner(f.stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var req map[string]any
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			panic(err)
		}
		f.handle(req)
	}
}

func num(v any) int64 { return int64(v.(float64)) }

func (f *fakeJVM) handle(req map[string]any) {
	id := req["id"]
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hook != nil && f.hook(req, func(m map[string]any) { m["id"] = id; f.reply(m) }) {
		return
	}
	switch req["op"] {
	case "open-producer", "open-consumer":
		f.nextH++
		if f.opened == nil {
			f.opened = map[string]map[string]string{}
		}
		props := map[string]string{}
		for k, v := range req["props"].(map[string]any) {
			props[k] = v.(string)
		}
		f.opened[req["op"].(string)] = props
		f.reply(map[string]any{"id": id, "handle": f.nextH})
	case "send":
		n := f.sends
		f.sends++
		if f.sendErr != nil {
			if e := f.sendErr(n, req); e != nil {
				go f.reply(map[string]any{"id": id, "error": e})
				return
			}
		}
		p := int32(num(req["partition"]))
		if f.log == nil {
			f.log = map[int32][]string{}
		}
		off := len(f.log[p])
		f.log[p] = append(f.log[p], req["value"].(string))
		go func() {
			time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
			f.reply(map[string]any{"id": id, "offset": off})
		}()
	case "offsets":
		out := map[string]int64{}
		for _, p := range req["partitions"].([]any) {
			pi := int32(num(p))
			out[strconv.Itoa(int(pi))] = 0
			if req["rule"] == workloads.ResetLatest {
				out[strconv.Itoa(int(pi))] = int64(len(f.log[pi]))
			}
		}
		f.reply(map[string]any{"id": id, "offsets": out})
	case "assign":
		if f.pos == nil {
			f.pos = map[int][]int64{}
		}
		h := int(num(req["handle"]))
		pos := make([]int64, 64)
		for i := range pos {
			pos[i] = -1
		}
		for p, o := range req["offsets"].(map[string]any) {
			pi, _ := strconv.Atoi(p)
			pos[pi] = num(o)
		}
		f.pos[h] = pos
		f.reply(map[string]any{"id": id, "ok": true})
	case "poll":
		n := f.polls
		f.polls++
		if f.pollHook != nil && f.pollHook(n, func(m map[string]any) { m["id"] = id; f.reply(m) }) {
			return
		}
		h := int(num(req["handle"]))
		var recs []map[string]any
		next := map[string]int64{}
		for p, o := range f.pos[h] {
			if o < 0 {
				continue
			}
			for ; o < int64(len(f.log[int32(p)])); o++ {
				recs = append(recs, map[string]any{"p": p, "o": o, "v": f.log[int32(p)][o], "e": 3})
			}
			f.pos[h][p] = o
			next[strconv.Itoa(p)] = o
		}
		if len(recs) == 0 {
			// as a real poll: wait a little for records
			go func() {
				time.Sleep(5 * time.Millisecond)
				f.reply(map[string]any{"id": id, "records": []any{}, "next": next})
			}()
			return
		}
		f.reply(map[string]any{"id": id, "records": recs, "next": next})
	case "close":
		f.closed++
		f.reply(map[string]any{"id": id})
	default:
		f.reply(map[string]any{"id": id, "error": JavaError{Class: "java.lang.IllegalArgumentException", Message: "unknown op"}})
	}
}

// fakeView is a healthy cluster for the final read: its partitions'
// leaders, their high watermarks, and nothing else (no replica offsets,
// no open transactions, no special timestamps' offsets).
type fakeView struct {
	parts []admin.PartitionState
	hw    map[int32]int64
}

func (v *fakeView) Describe(context.Context, string) ([]admin.PartitionState, error) {
	return slices.Clone(v.parts), nil
}

func (v *fakeView) DescribeFrom(ctx context.Context, _ int32, topic string) ([]admin.PartitionState, error) {
	return v.Describe(ctx, topic)
}

func (v *fakeView) HighWatermark(_ context.Context, _ int32, _ string, p int32) (int64, error) {
	return v.hw[p], nil
}

func (v *fakeView) OffsetsAt(context.Context, int32, string, int32, ...int64) map[int64]int64 {
	return map[int64]int64{}
}

func (v *fakeView) OpenTxns(context.Context, string, int32) ([]histories.OpenTxn, error) {
	return nil, nil
}

func (v *fakeView) ReplicaLogEndOffsets(context.Context, string, []int32, []int32) map[int32]map[int32]int64 {
	return map[int32]map[int32]int64{}
}
