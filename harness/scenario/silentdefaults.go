package scenario

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// A written zero that would read as unset.
//
// Many scenario fields take their default when left at zero
// (cluster.brokers, topic.partitions, workload.request_timeout, ...):
// YAML decoding cannot tell a field left out from one written 0, and
// Defaults fills both. A zero written on purpose was then a silent
// default: `--set cluster.brokers=0` ran three brokers, and
// `cluster.tiered.local_retention_ms: 0` ran 2000 ms. Such a field says so
// where it is declared, with the struct tag `zero:"unset"`; a scenario
// that writes one as zero (in its file or with --set) is bad input, named
// by its line or --set and told the default it would have taken. A field
// whose zero is a value of its own (workload.retries, workload.rate: 0 is
// unlimited, seed: 0 picks one) carries no tag.
//
// A scalar field written with no value (null, or an empty string, as
// `--set cluster.kafka=` gives when a shell variable is unset) that a
// default then fills is refused the same way: `--set workload.acks=` ran
// acks=all and `--set cluster.kafka=` the default release.
//
// The same walk refuses a written value that Defaults replaces from other
// fields, which a field declares with the struct tag `written:"WHY"`
// (WHY says what sets it): `workload.idempotent: false` with transactions
// on ran idempotent (Kafka's own producer refuses a transactional.id
// without idempotence), and `cluster.brokers: 5` under the ssh backend ran
// as many brokers as cluster.hosts lists.

// unsetTag marks a field whose zero reads as unset; keptTag one whose
// written value Defaults may replace (its value says from what).
const (
	unsetTag = "zero"
	keptTag  = "written"
)

// refuseSilentDefaults reports every field tagged zero:"unset" that the
// document writes and that decoded to zero, and every field tagged
// written:"..." whose written value Defaults replaced: what the user
// wrote would otherwise have been silently replaced. defaults is the
// scenario decoded again with Defaults applied, to name what each would
// have taken.
func refuseSilentDefaults(doc *yaml.Node, s, defaults *Scenario, o *origins) []string {
	var out []string
	var walk func(n *yaml.Node, v, d reflect.Value, path, set string)
	walk = func(n *yaml.Node, v, d reflect.Value, path, set string) {
		if n == nil {
			return
		}
		if s, ok := o.sets[n]; ok {
			set = s
		}
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return
			}
			v = v.Elem()
			if d.Kind() == reflect.Pointer && !d.IsNil() {
				d = d.Elem()
			} else {
				d = reflect.Value{}
			}
		}
		switch {
		case v.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
			t := v.Type()
			for i := 0; i+1 < len(n.Content); i += 2 {
				key, val := n.Content[i], n.Content[i+1]
				f, ok := fieldByYAMLName(t, key.Value)
				if !ok {
					continue // unknown fields are decoding's to refuse
				}
				fv := v.FieldByIndex(f.Index)
				var fd reflect.Value
				if d.IsValid() {
					fd = d.FieldByIndex(f.Index)
				}
				p := join(path, key.Value)
				fset := set
				for _, kv := range []*yaml.Node{key, val} {
					if s, ok := o.sets[kv]; ok {
						fset = s
					}
				}
				at := func(format string, a ...any) {
					msg := p + ": " + fmt.Sprintf(format, a...)
					if where := o.where(spot{path: p, line: val.Line, set: fset}); where != p {
						msg = where + ": " + msg
					}
					out = append(out, msg)
				}
				if f.Tag.Get(unsetTag) == "unset" && fv.IsZero() && writtenZero(val, f.Type) {
					at("%s reads as unset and would take %s: write a value above zero, or leave the field out for the default",
						val.Value, defaultWords(fd))
					continue
				}
				if writtenEmpty(val, f.Type) && fv.IsZero() && fd.IsValid() && !fd.IsZero() {
					at("written with no value, it would take %s: write a value, or leave the field out for the default",
						defaultWords(fd))
					continue
				}
				if why := f.Tag.Get(keptTag); why != "" && fd.IsValid() && !reflect.DeepEqual(fv.Interface(), fd.Interface()) {
					at("written %v, but the scenario would run with %v (%s): write that, or leave the field out",
						fv.Interface(), fd.Interface(), why)
					continue
				}
				walk(val, fv, fd, p, fset)
			}
		case v.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
			for i, el := range n.Content {
				if i >= v.Len() {
					break
				}
				var ed reflect.Value
				if d.IsValid() && d.Kind() == reflect.Slice && i < d.Len() {
					ed = d.Index(i)
				}
				walk(el, v.Index(i), ed, fmt.Sprintf("%s[%d]", path, i), set)
			}
		}
	}
	walk(doc.Content[0], reflect.ValueOf(s).Elem(), reflect.ValueOf(defaults).Elem(), "", "")
	return out
}

// writtenZero reports whether val, a scalar, is itself a zero of type t:
// a type with its own codec may decode a key elsewhere (a fault step's
// timeout is its parameters'), leaving the field zero whatever was
// written.
func writtenZero(val *yaml.Node, t reflect.Type) bool {
	if val.Kind != yaml.ScalarNode {
		return false
	}
	p := reflect.New(t)
	return val.Decode(p.Interface()) == nil && p.Elem().IsZero()
}

// writtenEmpty reports whether val writes no value (null, ~, an empty
// or blank string: `acks:` in a file, `--set workload.acks=` from a shell
// variable left unset) for a field of a scalar type t, whose zero a
// default then fills. A mapping or list written empty is nothing, not a
// value replaced.
func writtenEmpty(val *yaml.Node, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array, reflect.Interface:
		return false
	}
	return val.Kind == yaml.ScalarNode && (val.Tag == "!!null" || (val.Tag == "!!str" && strings.TrimSpace(val.Value) == ""))
}

// defaultWords names the default a zero would have taken (def: the
// field with Defaults applied; not every default is filled in the
// scenario itself, some only in a lower package's copy).
func defaultWords(def reflect.Value) string {
	if def.IsValid() && !def.IsZero() {
		return fmt.Sprintf("its default, %v", def.Interface())
	}
	return "its default"
}

// fieldByYAMLName finds t's field that YAML decodes key into: by its yaml
// tag's name, else by its lowercased Go name (yaml.v3's rule).
func fieldByYAMLName(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = strings.ToLower(f.Name)
		}
		if name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
