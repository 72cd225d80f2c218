package checker

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kchaos/kchaos/checker/metadata"
	"github.com/kchaos/kchaos/histories"
)

// fuzzVoters makes historyFromBytes's voter-set steps (KIP-853): quorum
// samples listing the voters (some from a newer epoch, some from a
// deposed leader's older one, some without voters or leader, some with a
// voter toggled against the cluster's set, so that acknowledged changes
// are lost), add-controller and remove-controller ops whose details carry
// Kafka's answer (NONE, a timeout, none, or found voting already), the
// node and whether it was stopped, and kills, starts and heals between,
// so that every branch of package metadata's voter judgement can occur.
type fuzzVoters struct {
	set   []int32 // the voter set the cluster holds, in id order
	epoch int32
}

func newFuzzVoters() *fuzzVoters { return &fuzzVoters{set: []int32{1000, 1001, 1002}, epoch: 3} }

// step writes one voter-set step chosen by x, y and z through line; at
// is the step's time, a quorum sample's ask (or none, as in histories
// before the observer recorded it, when x&0x08).
func (v *fuzzVoters) step(line func(proc int, typ, f, val, errText string), at int64, x, y, z byte) {
	node := 1000 + int32(x%4)
	switch y & 3 {
	case 0:
		epoch := v.epoch
		switch {
		case y&0x04 != 0:
			v.epoch++
			epoch = v.epoch
		case y&0x08 != 0:
			epoch-- // a deposed leader still answering
		}
		leader := node
		if x&0x30 == 0x30 {
			leader = -1
		}
		ids := slices.Clone(v.set)
		if t := 1000 + int32(z%4); y&0x10 != 0 {
			if i := slices.Index(ids, t); i >= 0 {
				ids = slices.Delete(ids, i, i+1)
			} else {
				ids = append(ids, t)
				slices.Sort(ids)
			}
		}
		var rs []string
		for _, id := range ids {
			if y&0x20 == 0 {
				rs = append(rs, fmt.Sprintf(`{"id":%d,"log_end_offset":9,"lag":0,"last_fetch_ms":-1,"last_caught_up_ms":-1}`, id))
			}
		}
		asked := ""
		if x&0x08 == 0 {
			asked = fmt.Sprintf(`"asked":%d,`, at)
		}
		line(histories.ObserverProcess, "ok", histories.FQuorum,
			fmt.Sprintf(`{%s"leader_id":%d,"leader_epoch":%d,"high_watermark":9,"voters":[%s],"observers":[]}`, asked, leader, epoch, strings.Join(rs, ",")), "")
	case 1, 2:
		f := histories.FAddController
		if y&3 == 2 {
			f = histories.FRemoveController
		}
		d := fmt.Sprintf(`"node":%d,"directory_id":"d%d","quorum_after":{"leader_id":%d,"leader_epoch":%d}`, node, node, node, v.epoch-int32(z>>7))
		code := []string{"NONE", "REQUEST_TIMED_OUT", "", "NONE"}[z&3]
		if code != "" {
			d += fmt.Sprintf(`,"answers":[{"code":%q}]`, code)
		} else if f == histories.FAddController {
			d += fmt.Sprintf(`,"already_voter":{"id":%d}`, node)
		}
		if s := []string{"", "before", "after", ""}[z>>2&3]; s != "" && f == histories.FRemoveController {
			d += fmt.Sprintf(`,"stopped":%q`, s)
		}
		typ, errText := "ok", ""
		if x&0x10 != 0 {
			typ, errText = "info", "not read back in time"
		}
		line(histories.NemesisProcess, "invoke", f, fmt.Sprintf(`{"fault":%q}`, f), "")
		line(histories.NemesisProcess, typ, f, fmt.Sprintf(`{"fault":%q,"nodes":[%d],"details":{%s}}`, f, node, d), errText)
		if code == "NONE" || code == "" && z&0x10 != 0 { // applied (sometimes even when not acknowledged)
			i := slices.Index(v.set, node)
			switch {
			case f == histories.FAddController && i < 0:
				v.set = append(v.set, node)
				slices.Sort(v.set)
			case f == histories.FRemoveController && i >= 0:
				v.set = slices.Delete(v.set, i, i+1)
			}
		}
	default:
		f := []string{histories.FKill, histories.FStart, histories.FHeal, histories.FPartition}[z&3]
		line(histories.NemesisProcess, "invoke", f, fmt.Sprintf(`{"fault":%q}`, f), "")
		line(histories.NemesisProcess, "ok", f, fmt.Sprintf(`{"fault":%q,"nodes":[%d]}`, f, node), "")
	}
}

// fuzzVotersSeed: sends and a final read; an add-controller of 1003 and
// a remove-controller of 1002 (stopped before) both answered NONE; then a
// newer epoch's sample without 1003 and, after it, one with 1002 again.
const fuzzVotersSeed = "\x00\x00\x03\x01\x00\x00\x03\x01\xf5\xc0\x00\x01\xf5\xc3\x01\x00\xf5\xc0\x00\x01\xf5\xc2\x02\x04" +
	"\xf5\xc1\x14\x03\xf5\xc1\x10\x02\x05\x00\x0c\x01\x05\x00\x0c\x01"

// TestFuzzVotersSeed: the seed makes a history the checker accepts in
// which both acknowledged changes are lost, so FuzzHistory starts from
// the voter judgement's counted branch.
func TestFuzzVotersSeed(t *testing.T) {
	h := historyFromBytes([]byte(fuzzVotersSeed))
	res, err := checkReader(strings.NewReader(h), Options{SkipLinearizability: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, h)
	}
	if res.Counts[metadata.VoterChangeLost] != 2 || res.Valid != Invalid {
		t.Fatalf("counts %v, valid %v, want voter-change-lost 2 and false; reasons %q\n%s", res.Counts, res.Valid, res.Reasons, h)
	}
	holdsInvariants(t, []byte(h))
}
