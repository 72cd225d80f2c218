package checker

import (
	"errors"
	"fmt"

	"github.com/kchaos/kchaos/checker/model"
	"github.com/kchaos/kchaos/histories"
)

// group-final (docs/HISTORY.md, "Consumer groups"): the group
// coordinator's state read back at the end of the run, on a process of
// its own. It is decoded here into model.ReadBack; package groupcheck
// holds it against the group's commits (commit-lost, commit-unexplained).

// groupFinalVal is a decoded group-final value; a nil field was absent.
type groupFinalVal struct {
	Group         *string                               `json:"group"`
	Topic         *string                               `json:"topic"`
	Offsets       map[string]histories.GroupFinalOffset `json:"offsets"`
	Errors        map[string]string                     `json:"errors"`
	Type          string                                `json:"type"`
	State         string                                `json:"state"`
	Protocol      string                                `json:"protocol"`
	Generation    *int32                                `json:"generation"`
	Members       []histories.GroupFinalMember          `json:"members"`
	Coordinator   *int32                                `json:"coordinator"`
	DescribeError string                                `json:"describe_error"`
}

func (c *checker) invokeGroupFinal(pd *pending, e *histories.Event) error {
	const what = "group-final invoke value"
	var v groupFinalVal
	if err := decodeRequired(what, e.Value, &v); err != nil {
		return err
	}
	if err := need(what, field{v.Group != nil && *v.Group != "", "group"}, field{v.Topic != nil, "topic"}); err != nil {
		return err
	}
	if err := c.checkTopic(what, *v.Topic); err != nil {
		return err
	}
	g := c.groupID(*v.Group)
	pd.gp = &groupPend{group: g, final: int32(len(c.ReadBacks))}
	c.ReadBacks = append(c.ReadBacks, model.ReadBack{Group: g, Proc: int32(e.Process), Index: e.Index, Call: e.Time, Ret: -1,
		Topic: *v.Topic})
	return nil
}

func (c *checker) completeGroupFinal(pd *pending, e *histories.Event) error {
	rb := &c.ReadBacks[pd.gp.final]
	rb.Ret, rb.Err, rb.Typ = e.Time, e.Error, completedAs(e.Type)
	what := fmt.Sprintf("group-final %s value", e.Type)
	if len(e.Value) == 0 {
		if e.Type == histories.OK {
			return errors.New(`group-final ok: missing field "value"`)
		}
		return nil
	}
	var v groupFinalVal
	if err := decodeGroup(what, e.Value, &v); err != nil {
		return err
	}
	if v.Group != nil && *v.Group != c.GroupNames.List[rb.Group] {
		return fmt.Errorf("%s: field \"group\": %q, but its invoke named %q", what, *v.Group, c.GroupNames.List[rb.Group])
	}
	if v.Topic != nil && *v.Topic != rb.Topic {
		return fmt.Errorf("%s: field \"topic\": %q, but its invoke named %q", what, *v.Topic, rb.Topic)
	}
	if e.Type != histories.OK {
		return nil // what it did not answer judges nothing
	}
	rb.Offsets, rb.Epochs = map[int32]int64{}, map[int32]int32{}
	for _, k := range sortedKeys(v.Offsets) {
		p, err := histories.ParsePartitionKey(k)
		if err != nil {
			return fmt.Errorf("%s: field \"offsets\": bad partition key %q", what, k)
		}
		o := v.Offsets[k]
		if o.Offset < 0 {
			return fmt.Errorf("%s: field \"offsets\": partition %d at %d, negative", what, p, o.Offset)
		}
		if err := c.checkPlace(what+": field \"offsets\"", []byte(rb.Topic), p); err != nil {
			return err
		}
		tp := c.tp([]byte(rb.Topic), p)
		rb.Offsets[tp], rb.Epochs[tp] = o.Offset, o.LeaderEpoch
	}
	for _, k := range sortedKeys(v.Errors) {
		p, err := histories.ParsePartitionKey(k)
		if err != nil {
			return fmt.Errorf("%s: field \"errors\": bad partition key %q", what, k)
		}
		if err := c.checkPlace(what+": field \"errors\"", []byte(rb.Topic), p); err != nil {
			return err
		}
		if rb.Errors == nil {
			rb.Errors = map[int32]string{}
		}
		rb.Errors[c.tp([]byte(rb.Topic), p)] = v.Errors[k]
	}
	rb.Type, rb.State, rb.Protocol, rb.Generation = v.Type, v.State, v.Protocol, v.Generation
	rb.Members, rb.Coordinator, rb.DescribeError = len(v.Members), v.Coordinator, v.DescribeError
	return nil
}
