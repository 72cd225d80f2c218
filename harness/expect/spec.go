package expect

import (
	"fmt"
	"maps"
	"slices"

	"gopkg.in/yaml.v3"
)

// Spec is a scenario's `outcome` field as written: a list whose items are
// either a bare check or a check with a condition.
//
//	outcome:
//	  - lost-write == 0
//	  - {check: "lost-write > 0", when: {unclean: "true"}}
//	  - {check: "offline_seconds <= 60", when: {unclean: "false"}}
type Spec []Item

// Item is one entry of a Spec.
type Item struct {
	Check string            `yaml:"check"`
	When  map[string]string `yaml:"when,omitempty"`
}

// UnmarshalYAML takes a bare string as a check without a condition.
func (it *Item) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&it.Check)
	}
	type plain Item
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*it = Item(p)
	return nil
}

// MarshalYAML writes an unconditional item back as a bare string.
func (it Item) MarshalYAML() (any, error) {
	if len(it.When) == 0 {
		return it.Check, nil
	}
	type plain Item
	return plain(it), nil
}

// fieldError is one problem of a Spec, with its field path.
type fieldError struct {
	Path string // outcome[1].check
	Err  error
}

func (e fieldError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }

// Checks parses every item. knownSetting says why a `when` key is not a
// setting the harness can resolve (nil: it is). All problems are returned,
// each naming its field path under field (e.g. "outcome").
func (s Spec) Checks(field string, knownSetting func(string) error) ([]Check, []error) {
	var out []Check
	var errs []error
	for i, it := range s {
		path := fmt.Sprintf("%s[%d]", field, i)
		bad := false
		for _, k := range slices.Sorted(maps.Keys(it.When)) {
			if knownSetting == nil {
				break
			}
			if err := knownSetting(k); err != nil {
				errs = append(errs, fieldError{Path: path + ".when." + k, Err: err})
				bad = true
			}
		}
		c, err := Parse(it.Check, it.When)
		if err != nil {
			errs = append(errs, fieldError{Path: path + ".check", Err: err})
			continue
		}
		if !bad {
			out = append(out, c)
		}
	}
	return out, errs
}
