package nemesis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A step is written flat, as it always was (`fault: disk-slow`, `dir: 0`,
// `rate: 64KiB` side by side): the shared fields are Step's, the others
// its fault kind's parameters. This file splits a step's YAML between the
// two, and joins them again when a step is written (scenario.yaml of a
// run, the plan in a random schedule's op), in the order of stepKeyOrder.

// plainStep is Step without its codec methods.
type plainStep Step

// sharedKeys are the keys of Step's own fields.
var sharedKeys = []string{"wait", "until", "timeout", "optional", "fault", "target", "heal"}

// stepKeyOrder is the order a step's keys are written in: the order of the
// format's fields before faults had parameter types of their own, so that
// recorded plans read the same. Keys of faults added since go last.
var stepKeyOrder = []string{"wait", "until", "timeout", "optional", "fault", "shape", "groups", "target",
	"config", "start", "dir", "rate", "model", "dirty_expire", "writeback_interval", "heal", "version",
	"finalize", "feature", "member", "for", "netem", "producer"}

// UnmarshalYAML decodes a step: the shared keys into Step, the fault's
// parameter keys into its kind's parameter type, as strictly as the rest
// of a scenario (an unknown key is an error with its line). A key that
// belongs to another fault's parameters is kept for Validate, which names
// the faults that take it.
func (st *Step) UnmarshalYAML(n *yaml.Node) error {
	*st = Step{}
	if n.Kind != yaml.MappingNode {
		return n.Decode((*plainStep)(st))
	}
	var fault string
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "fault" {
			fault = n.Content[i+1].Value
		}
	}
	var params Params
	var keys []string
	if k, ok := LookupKind(fault); ok {
		params = k.New()
		keys = paramKeys(params)
	}
	shared := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	own := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	var terrs []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case slices.Contains(keys, k.Value):
			own.Content = append(own.Content, k, v)
		case slices.Contains(sharedKeys, k.Value):
			shared.Content = append(shared.Content, k, v)
		case faultsTaking(k.Value) != "":
			st.misplaced = append(st.misplaced, k.Value)
		default:
			terrs = append(terrs, fmt.Sprintf("line %d: field %s not found in type nemesis.Step", k.Line, k.Value))
		}
	}
	decode := func(n *yaml.Node, v any) error {
		terrs = append(terrs, unknownFields(n, reflect.TypeOf(v))...)
		err := n.Decode(v)
		if te, ok := err.(*yaml.TypeError); ok {
			terrs = append(terrs, te.Errors...)
			return nil
		}
		return err
	}
	if err := decode(shared, (*plainStep)(st)); err != nil {
		return err
	}
	if params != nil {
		if err := decode(own, params); err != nil {
			return err
		}
		st.Params = params
	}
	if len(terrs) > 0 {
		return &yaml.TypeError{Errors: terrs}
	}
	return nil
}

// unknownFields reports the mapping keys under n that t has no field for,
// as yaml's own strict decoding words them: a node's Decode is never
// strict, and the step's parameters and target must be as strict as the
// rest of the file.
func unknownFields(n *yaml.Node, t reflect.Type) []string {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	unmarshaler := reflect.TypeFor[yaml.Unmarshaler]()
	if t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) {
		return nil
	}
	var out []string
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			f, ok := fieldByKey(t, k.Value)
			if !ok {
				out = append(out, fmt.Sprintf("line %d: field %s not found in type %s", k.Line, k.Value, t))
				continue
			}
			out = append(out, unknownFields(n.Content[i+1], f.Type)...)
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			out = append(out, unknownFields(c, t.Elem())...)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			out = append(out, unknownFields(n.Content[i], t.Elem())...)
		}
	}
	return out
}

// yamlKey is a struct field's YAML key ("" for a field YAML skips).
func yamlKey(f reflect.StructField) (key string, omitempty bool) {
	if !f.IsExported() {
		return "", false
	}
	name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return "", false
	}
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	return name, slices.Contains(strings.Split(opts, ","), "omitempty")
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if k, _ := yamlKey(t.Field(i)); k == key {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// field is one key of a step as written.
type field struct {
	key string
	val any
}

// fieldsOf is v's fields as written: keyed by their YAML tags, empty
// omitempty fields left out.
func fieldsOf(v any) []field {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	var out []field
	for i := range rv.NumField() {
		key, omit := yamlKey(rv.Type().Field(i))
		if key == "" || omit && empty(rv.Field(i)) {
			continue
		}
		out = append(out, field{key, rv.Field(i).Interface()})
	}
	return out
}

// empty is omitempty's rule.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return v.IsZero()
}

// fields is the step as written: its shared fields and its parameters, in
// stepKeyOrder.
func (st Step) fields() []field {
	out := fieldsOf(plainStep(st))
	if st.Params != nil {
		out = append(out, fieldsOf(st.Params)...)
	}
	rank := func(k string) int {
		if i := slices.Index(stepKeyOrder, k); i >= 0 {
			return i
		}
		return len(stepKeyOrder)
	}
	slices.SortStableFunc(out, func(a, b field) int { return rank(a.key) - rank(b.key) })
	return out
}

// MarshalYAML writes the step flat (fields).
func (st Step) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, f := range st.fields() {
		var v yaml.Node
		if err := v.Encode(f.val); err != nil {
			return nil, fmt.Errorf("step field %s: %w", f.key, err)
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: f.key}, &v)
	}
	return n, nil
}

// MarshalJSON writes the step flat (fields), as docs/HISTORY.md's plan
// records show it.
func (st Step) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range st.fields() {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		v, err := json.Marshal(f.val)
		if err != nil {
			return nil, fmt.Errorf("step field %s: %w", f.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a step as MarshalJSON wrote it (JSON is YAML).
func (st *Step) UnmarshalJSON(b []byte) error { return yaml.Unmarshal(b, st) }
