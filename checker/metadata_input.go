package checker

import (
	"fmt"
	"slices"

	"github.com/kchaos/kchaos/histories"
)

// metaInput holds the metadata ops to the required fields docs/HISTORY.md
// lists for them ("Rules the checker holds to") beyond what package
// metadata's collector refuses on its own (a change's topic, an
// alter-config's key, a create's partitions, a read's role): a read
// without its node or log end offset would be a node 0 at offset 0, and
// a completion that names another change or node than its invoke leaves
// unknown which one happened. Both are bad input, never a zero.
type metaInput map[int]metaAsked // process -> its open metadata op

// metaAsked is what a metadata op's invoke asked.
type metaAsked struct {
	op   histories.MetaOp
	node int32
}

// rawMetaRead is a metadata-read's value with its required fields'
// presence.
type rawMetaRead struct {
	Node         *int32  `json:"node"`
	Role         *string `json:"role"`
	LogEndOffset *int64  `json:"log_end_offset"`
}

// check refuses e if it is a metadata op lacking a required field or
// contradicting its invoke; other events pass.
func (m *metaInput) check(e *histories.Event) error {
	read := e.F == histories.FMetadataRead
	if e.Process < 0 || !read && !slices.Contains(histories.MetadataOps, e.F) {
		return nil
	}
	if *m == nil {
		*m = metaInput{}
	}
	if e.Type == histories.Invoke {
		var asked metaAsked
		if read {
			var v rawMetaRead
			if err := e.Decode(&v); err != nil {
				return fmt.Errorf("%s invoke value: %w", e.F, histories.FieldError(err))
			}
			if v.Node == nil {
				return fmt.Errorf(`%s invoke value: missing field "node"`, e.F)
			}
			asked.node = *v.Node
		} else if err := e.Decode(&asked.op); err != nil {
			return fmt.Errorf("%s invoke value: %w", e.F, histories.FieldError(err))
		}
		(*m)[e.Process] = asked
		return nil
	}
	asked, ok := (*m)[e.Process]
	delete(*m, e.Process)
	if !ok || len(e.Value) == 0 {
		return nil // the collector refuses a completion without its invoke
	}
	what := fmt.Sprintf("%s %s value", e.F, e.Type)
	if !read {
		var v histories.MetaOp
		if err := e.Decode(&v); err != nil {
			return fmt.Errorf("%s: %w", what, histories.FieldError(err))
		}
		return sameChange(what, asked.op, v)
	}
	var v rawMetaRead
	if err := e.Decode(&v); err != nil {
		return fmt.Errorf("%s: %w", what, histories.FieldError(err))
	}
	switch {
	case v.Node != nil && *v.Node != asked.node:
		return fmt.Errorf(`%s: field "node": %d, but its invoke asked node %d`, what, *v.Node, asked.node)
	case e.Type != histories.OK:
		return nil // a failed read says nothing of the node's metadata
	case v.Node == nil:
		return fmt.Errorf(`%s: missing field "node"`, what)
	case v.Role == nil:
		return fmt.Errorf(`%s: missing field "role"`, what)
	case *v.Role != "broker" && *v.Role != "controller":
		return fmt.Errorf(`%s: field "role": %q, want "broker" or "controller"`, what, *v.Role)
	case v.LogEndOffset == nil:
		return fmt.Errorf(`%s: missing field "log_end_offset"`, what)
	case *v.LogEndOffset < -1:
		return fmt.Errorf(`%s: field "log_end_offset": %d, want >= 0, or -1 for unknown`, what, *v.LogEndOffset)
	}
	return nil
}

// sameChange refuses a change's completion naming another topic,
// partition count, key or value than its invoke (a field absent from the
// completion contradicts nothing: the value is optional there).
func sameChange(what string, asked, got histories.MetaOp) error {
	for _, f := range []struct {
		name       string
		asked, got any
		absent     bool
	}{
		{"topic", asked.Topic, got.Topic, got.Topic == ""},
		{"partitions", asked.Partitions, got.Partitions, got.Partitions == 0},
		{"key", asked.Key, got.Key, got.Key == ""},
		{"value", asked.Value, got.Value, got.Value == ""},
	} {
		if !f.absent && f.asked != f.got {
			return fmt.Errorf("%s: field %q: %v, but its invoke asked %v", what, f.name, f.got, f.asked)
		}
	}
	return nil
}
