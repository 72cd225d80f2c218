package logmodel

import (
	"math"
	"strconv"
	"testing"

	"github.com/anishathalye/porcupine"
)

// Model-level histories: appends, reads and final reads of one window.
func opAppend(id int32, off, call, ret int64) porcupine.Operation {
	return porcupine.Operation{Call: call, Return: ret, Input: &Op{Kind: Append, ID: id, Off: off, Val: id}}
}

func opRead(call, ret int64, ids ...int32) porcupine.Operation {
	return porcupine.Operation{Call: call, Return: ret, Input: &Op{Kind: Read, IDs: ids}}
}

func opFinal(call, ret, end int64, covered []int32, ids ...int32) porcupine.Operation {
	in := &Op{Kind: Final, End: end}
	for _, id := range covered {
		for int(id/64) >= len(in.Mask) {
			in.Mask = append(in.Mask, 0)
		}
		in.Mask[id/64] |= 1 << (id % 64)
	}
	for _, id := range ids {
		for int(id/64) >= len(in.Want) {
			in.Want = append(in.Want, 0)
		}
		in.Want[id/64] |= 1 << (id % 64)
	}
	return porcupine.Operation{Call: call, Return: ret, Input: in}
}

func TestLogModel(t *testing.T) {
	all := []int32{0, 1, 2}
	cases := []struct {
		name string
		ops  []porcupine.Operation
		want bool
	}{
		{"sequential appends and reads", []porcupine.Operation{
			opAppend(0, 0, 0, 10), opAppend(1, 1, 20, 30), opRead(40, 50, 0, 1), opFinal(60, 70, 2, all[:2], 0, 1)}, true},
		{"concurrent sends acked out of invoke order", []porcupine.Operation{
			opAppend(0, 1, 0, 30), opAppend(1, 0, 5, 20), opRead(25, 40, 1, 0), opFinal(60, 70, 2, all[:2], 0, 1)}, true},
		{"a read sees a record before its send is acked", []porcupine.Operation{
			opAppend(0, 0, 0, 100), opRead(10, 20, 0), opFinal(200, 210, 1, all[:1], 0)}, true},
		{"an info send, open-ended, read at the end", []porcupine.Operation{
			opAppend(0, 0, 0, 10), opAppend(1, 1, 5, Infinity), opFinal(200, 210, 2, all[:2], 0, 1)}, true},
		{"a read from the future", []porcupine.Operation{
			opRead(0, 5, 0), opAppend(0, 0, 10, 20), opFinal(200, 210, 1, all[:1], 0)}, false},
		{"sixteen concurrent sends acked in reverse", reverseSends(16), true},
		{"a later send takes a lower offset", []porcupine.Operation{
			opAppend(0, 1, 0, 10), opAppend(1, 0, 20, 30), opFinal(200, 210, 2, all[:2], 0, 1)}, false},
		{"an acked record missing from the final read", []porcupine.Operation{
			opAppend(0, 0, 0, 10), opAppend(1, 1, 20, 30), opFinal(200, 210, 1, all[:2], 0)}, false},
		{"a polled record gone from the final read", []porcupine.Operation{
			opAppend(0, 0, 0, 10), opAppend(1, 1, 5, 50), opRead(40, 50, 0, 1), opFinal(200, 210, 1, all[:2], 0)}, false},
		{"an append below the end the final read saw", []porcupine.Operation{
			opAppend(0, 0, 0, 10), opFinal(20, 30, 5, all[:1], 0), opAppend(1, 3, 40, 50)}, false},
		{"a read nothing explains", []porcupine.Operation{
			opAppend(0, 0, 0, 10), opRead(20, 30, 0, -1)}, false},
	}
	model := Model(func(v int32) string { return strconv.Itoa(int(v)) })
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withPrev(c.ops)
			if got := porcupine.CheckOperations(model, c.ops); got != c.want {
				t.Errorf("linearizable = %v, want %v", got, c.want)
			}
		})
	}
}

// withPrev sets each append's prev as linOps does.
func withPrev(ops []porcupine.Operation) {
	for _, a := range ops {
		in := a.Input.(*Op)
		if in.Kind != Append {
			continue
		}
		in.Prev = math.MinInt64
		for _, b := range ops {
			if o := b.Input.(*Op); o.Kind == Append && o.Off < in.Off && o.Off > in.Prev {
				in.Prev = o.Off
			}
		}
	}
}

func TestLinStepIsPure(t *testing.T) {
	s0 := initState
	ok, s1 := linStep(s0, &Op{Kind: Append, ID: 3, Off: 7, Prev: math.MinInt64}, nil)
	if !ok || s0.frontier != math.MinInt64 || len(s0.set) != 0 {
		t.Fatalf("step changed its input state: %+v", s0)
	}
	if ok, _ := linStep(s1, &Op{Kind: Append, ID: 4, Off: 6, Prev: math.MinInt64}, nil); ok {
		t.Error("append below the frontier accepted")
	}
	if ok, _ := linStep(s1, &Op{Kind: Append, ID: 5, Off: 10, Prev: 9}, nil); ok {
		t.Error("append past an unapplied lower append accepted")
	}
	if ok, _ := linStep(s1, &Op{Kind: Append, ID: 5, Off: 10, Prev: 7}, nil); !ok {
		t.Error("append right after the applied one refused")
	}
	if !linEqual(s1, s1) || linEqual(s0, s1) {
		t.Error("linEqual")
	}
}

// reverseSends: n overlapping sends whose offsets run against their invoke
// order, then a final read of them all.
func reverseSends(n int) []porcupine.Operation {
	var ops []porcupine.Operation
	var all []int32
	for i := range n {
		ops = append(ops, opAppend(int32(i), int64(n-1-i), int64(i), int64(100+i)))
		all = append(all, int32(i))
	}
	return append(ops, opFinal(200, 210, int64(n), all, all...))
}
