package scenario

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/magiconair/properties"
	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/internal/bounds"
)

//go:embed builtin/*.yaml
var builtinFS embed.FS

// Builtin is a built-in scenario's name and its whole description.
type Builtin struct{ Name, Description string }

// Builtins lists the built-in scenarios in order (s1, s2, ..., s12, then d1, u1, u2).
func Builtins() []Builtin {
	entries, _ := fs.ReadDir(builtinFS, "builtin")
	var out []Builtin
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".yaml")
		s, err := parse(mustRead("builtin/"+e.Name()), e.Name(), nil, true)
		desc := ""
		if err == nil {
			desc = s.Description
		}
		out = append(out, Builtin{Name: name, Description: strings.TrimSpace(desc)})
	}
	sort.Slice(out, func(i, j int) bool { return builtinOrder(out[i].Name) < builtinOrder(out[j].Name) })
	return out
}

func builtinOrder(name string) string {
	// s2 before s10: pad the number; the seed stories first, then the
	// others (d1, u1, ...) by name.
	if strings.HasPrefix(name, "s") && len(name) < 4 {
		return fmt.Sprintf("s%03s", name[1:])
	}
	return "~" + name
}

// BuiltinYAML is a built-in scenario's file as kchaos embeds it, comments
// and all: a starting point for one's own (kchaos scenarios NAME).
func BuiltinYAML(name string) ([]byte, bool) {
	b, err := builtinFS.ReadFile(path.Join("builtin", name+".yaml"))
	return b, err == nil
}

func mustRead(name string) []byte {
	b, err := builtinFS.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

// BadInputError is a problem with a scenario file, a --set or a config
// file: the CLI exits 254 with its message.
type BadInputError struct{ Err error }

func (e *BadInputError) Error() string { return e.Err.Error() }
func (e *BadInputError) Unwrap() error { return e.Err }

// Load reads a built-in scenario by name or a YAML file by path, applies
// sets ("path=value", e.g. "topic.configs.min.insync.replicas=2" or
// "workload.acks=1"), fills defaults and validates. Every error is a
// *BadInputError naming the file, line or field.
func Load(nameOrFile string, sets []string) (*Scenario, error) {
	var data []byte
	var source string
	if b, err := builtinFS.ReadFile(path.Join("builtin", nameOrFile+".yaml")); err == nil {
		data, source = b, "built-in scenario "+nameOrFile
	} else {
		b, err := ReadInput(nameOrFile, "scenario")
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				var names []string
				for _, b := range Builtins() {
					names = append(names, b.Name)
				}
				return nil, &BadInputError{fmt.Errorf("%q is neither a built-in scenario (%s) nor a file", bounds.Cut(nameOrFile), strings.Join(names, ", "))}
			}
			return nil, &BadInputError{err}
		}
		data, source = b, nameOrFile
	}
	s, err := parse(data, source, sets, true)
	// Fields that decoded are still validated, so a file with several
	// problems reports them all: decoding's (with their lines), then
	// validation's (with their field paths).
	var te *yaml.TypeError
	if err != nil && (s == nil || !errors.As(err, &te)) {
		return nil, &BadInputError{err}
	}
	s.Defaults()
	if verr := s.Validate(); verr != nil {
		verr = fmt.Errorf("%s: %w", source, verr)
		if err != nil {
			verr = errors.Join(err, verr)
		}
		return nil, &BadInputError{verr}
	}
	if err != nil {
		return nil, &BadInputError{err}
	}
	return s, nil
}

// parse decodes YAML strictly (unknown fields are errors with their line),
// after applying sets to the document tree. lines says the document's
// lines are the user's (a file's, a built-in's): a problem is named by
// its line, else by its field path; one in what a --set made, by the set.
func parse(data []byte, source string, sets []string, lines bool) (*Scenario, error) {
	doc, err := ParseYAML(data, source)
	if err != nil {
		return nil, err
	}
	o := &origins{lines: lines}
	for _, set := range sets {
		if err := applySet(doc, set, o); err != nil {
			return nil, fmt.Errorf("--set %s: %v", bounds.Cut(set), err)
		}
	}
	if err := refuseRemoved(doc.Content[0]); err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	if len(sets) > 0 {
		// What the sets made counts too (a list given in a --set).
		if err := checkNodes(doc, source+" with --set"); err != nil {
			return nil, err
		}
	}
	merged, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(merged))
	dec.KnownFields(true)
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		// A *yaml.TypeError leaves the fields that did decode in s.
		return &s, o.translate(err, source, doc, merged)
	}
	var def Scenario // decoded as s was: only its defaults are read
	_ = yaml.Unmarshal(merged, &def)
	def.Defaults()
	if zs := refuseSilentDefaults(doc, &s, &def, o); len(zs) > 0 {
		return nil, fmt.Errorf("%s: %s", source, strings.Join(zs, "\n"))
	}
	return &s, nil
}

// removed are fields a scenario once accepted, with what to write instead.
// They are refused by name (exit 254) rather than with a bare "field not
// found", so that an old scenario file says how to fix itself.
var removed = []struct{ Path, Msg string }{
	{"workload.final_read_timeout", "removed: use final.read_timeout (the one bound on the final read)"},
	{"final.heal", "removed: the final heal always runs, because the final read needs a leader on every " +
		"partition and a run must not leave faults behind; delete the field (to keep a fault until the end, " +
		"end the schedule with a wait instead of a heal step)"},
}

// refuseRemoved reports the first removed field in the document, with its
// line (0 for a field that only a --set made).
func refuseRemoved(root *yaml.Node) error {
	for _, r := range removed {
		node := root
		var key *yaml.Node
		for _, seg := range strings.Split(r.Path, ".") {
			key = nil
			if node == nil || node.Kind != yaml.MappingNode {
				break
			}
			var next *yaml.Node
			for j := 0; j+1 < len(node.Content); j += 2 {
				if node.Content[j].Value == seg {
					key, next = node.Content[j], node.Content[j+1]
					break
				}
			}
			node = next
		}
		if key != nil {
			where := "--set"
			if key.Line > 0 {
				where = fmt.Sprintf("line %d", key.Line)
			}
			return fmt.Errorf("%s: %s: %s", where, r.Path, r.Msg)
		}
	}
	return nil
}

// freeMaps are the mappings whose keys are Kafka config names, which
// contain dots: in a --set path, everything after them is one key.
// ("*" stands for any element of a list, "#" for a broker id.)
var freeMaps = map[string]bool{
	"topic.configs": true, "cluster.broker_config": true, "cluster.controller_config": true,
	"nemesis.steps.*.config": true, "cluster.per_broker.#": true,
	"workload.producer_props": true, "workload.consumer_props": true,
}

// applySet sets one value in the YAML tree: "a.b.c=v". A segment "name[*]"
// walks every element of the list name and sets the rest of the path only
// in elements where it already exists, e.g.
// nemesis.steps[*].config.unclean.leader.election.enable=false changes
// every live set-config step of that key and adds nothing.
func applySet(doc *yaml.Node, set string, o *origins) error {
	key, value, ok := strings.Cut(set, "=")
	if !ok || strings.TrimSpace(key) == "" {
		return errors.New("want path=value, e.g. workload.acks=1")
	}
	var segs []string
	var generic []string // the path with list elements as "*"
	for _, seg := range strings.Split(strings.TrimSpace(key), ".") {
		if freeMaps[strings.Join(generic, ".")] {
			segs[len(segs)-1] += "." + seg
			continue
		}
		if strings.Join(generic, ".") == "cluster.per_broker" {
			// A broker id: its map of Kafka configs follows.
			segs = append(segs, seg)
			generic = append(generic, "#")
		} else if name, ok := strings.CutSuffix(seg, "[*]"); ok {
			segs = append(segs, name, "*")
			generic = append(generic, name, "*")
		} else {
			segs = append(segs, seg)
			generic = append(generic, seg)
		}
		if freeMaps[strings.Join(generic, ".")] {
			segs = append(segs, "")
		}
	}
	if segs[len(segs)-1] == "" {
		return errors.New("missing the config name after the map")
	}
	// A free map's key segment was started empty and grown: trim the dot.
	for i, sg := range segs {
		segs[i] = strings.TrimPrefix(sg, ".")
	}
	mark := func(n *yaml.Node) { o.mark(n, set) }
	return setPath(doc.Content[0], segs, 0, value, true, freeMapValue(generic), mark)
}

// freeMapValue reports whether the value sits in a free map (Kafka configs
// are strings, even "true" and "2").
func freeMapValue(generic []string) bool {
	for i := 0; i <= len(generic); i++ {
		if freeMaps[strings.Join(generic[:i], ".")] {
			return true
		}
	}
	return false
}

func setPath(node *yaml.Node, segs []string, i int, value string, create, asString bool, mark func(*yaml.Node)) error {
	seg := segs[i]
	last := i == len(segs)-1
	if seg == "*" {
		if node.Kind != yaml.SequenceNode {
			if create {
				return fmt.Errorf("%s is not a list", strings.Join(segs[:i], "."))
			}
			return nil
		}
		for _, el := range node.Content {
			if err := setPath(el, segs, i+1, value, false, asString, mark); err != nil {
				return err
			}
		}
		return nil
	}
	if node.Kind != yaml.MappingNode {
		if !create {
			return nil
		}
		return fmt.Errorf("%s is not a mapping", strings.Join(segs[:i], "."))
	}
	var next *yaml.Node
	for j := 0; j+1 < len(node.Content); j += 2 {
		if node.Content[j].Value == seg {
			next = node.Content[j+1]
			break
		}
	}
	if next == nil {
		if !create {
			return nil
		}
		next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		tag := "!!str"
		if i > 0 && segs[i-1] == "per_broker" {
			tag = "!!int" // per_broker is keyed by broker id
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: seg}
		node.Content = append(node.Content, key, next)
		mark(key)
	}
	if !last {
		return setPath(next, segs, i+1, value, create, asString, mark)
	}
	var v yaml.Node
	switch {
	case asString:
		*next = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	case yaml.Unmarshal([]byte(value), &v) == nil && len(v.Content) > 0:
		*next = *v.Content[0]
	default:
		*next = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	}
	mark(next)
	return nil
}

// ReadProperties reads a Java properties file (key=value or key: value,
// # and ! comments, continuations, escapes) for --broker-config,
// --topic-config, --producer-config and --consumer-config: the one
// properties parser. A .yaml or .yml file is read as a flat mapping
// instead. A line Java would refuse is named as "FILE: line N: ...".
func ReadProperties(file string) (map[string]string, error) {
	b, err := ReadInput(file, "properties")
	if err != nil {
		return nil, &BadInputError{err}
	}
	out := map[string]string{}
	if strings.HasSuffix(file, ".yaml") || strings.HasSuffix(file, ".yml") {
		doc, err := ParseYAML(b, file)
		if err != nil {
			return nil, &BadInputError{err}
		}
		var m map[string]any
		if err := doc.Decode(&m); err != nil {
			return nil, &BadInputError{fmt.Errorf("%s: %v", file, err)}
		}
		for k, v := range m {
			switch v.(type) {
			case map[string]any, []any:
				return nil, &BadInputError{fmt.Errorf("%s: key %s: want a scalar value", file, bounds.Cut(k))}
			}
			out[k] = fmt.Sprint(v)
		}
		return out, nil
	}
	// Java's properties format, as Kafka reads server.properties
	// (java.util.Properties.load: ISO-8859-1, backslash escapes, line
	// continuations, '=', ':' or blanks between key and value, no ${}
	// expansion): a library that implements it rather than a line split.
	loader := properties.Loader{Encoding: properties.ISO_8859_1, DisableExpansion: true}
	p, err := loader.LoadBytes(b)
	if err != nil {
		// The library says "properties: Line N: why"; say it as kchaos
		// names a line of any input file.
		msg := err.Error()
		if rest, ok := strings.CutPrefix(msg, "properties: Line "); ok {
			msg = "line " + rest
		}
		return nil, &BadInputError{fmt.Errorf("%s: %s", file, msg)}
	}
	for _, k := range p.Keys() {
		v, _ := p.Get(k)
		out[k] = v
	}
	return out, nil
}

// Marshal renders the scenario as run.
func (s *Scenario) Marshal() ([]byte, error) { return yaml.Marshal(s) }
