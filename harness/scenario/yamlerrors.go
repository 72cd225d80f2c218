package scenario

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/internal/bounds"
)

// origins says where each node of a scenario's document came from: the
// --set that made or replaced it (nodes absent: the file's own, at their
// line), so that a problem decoding the merged document is told in the
// user's words: the file and line, or the --set, and the field's path,
// never the line of kchaos's merged document or a Go type.
type origins struct {
	sets map[*yaml.Node]string
	// lines: the document's lines are the user's (a file, a built-in);
	// false for a document kchaos wrote (Derive), named by path alone.
	lines bool
}

func (o *origins) mark(n *yaml.Node, set string) {
	if o.sets == nil {
		o.sets = map[*yaml.Node]string{}
	}
	o.sets[n] = set
}

// spot is one node of the merged document: where it came from and its
// field path.
type spot struct {
	key          bool
	value        string
	path, parent string
	line         int
	set          string
}

// where names the spot as the user wrote it.
func (o *origins) where(s spot) string {
	switch {
	case s.set != "":
		return "with --set " + bounds.Cut(s.set)
	case o.lines && s.line > 0:
		return fmt.Sprintf("line %d", s.line)
	}
	return s.path
}

// spots maps each line of the merged document to the nodes on it, by
// walking the document (orig) and its re-parse (merged) together.
func (o *origins) spots(orig, merged *yaml.Node) map[int][]spot {
	out := map[int][]spot{}
	var walk func(on, mn *yaml.Node, path, parent, set string, key bool)
	walk = func(on, mn *yaml.Node, path, parent, set string, key bool) {
		if on == nil || mn == nil {
			return
		}
		if s, ok := o.sets[on]; ok {
			set = s
		}
		out[mn.Line] = append(out[mn.Line], spot{key: key, value: on.Value, path: path, parent: parent, line: on.Line, set: set})
		if on.Kind != mn.Kind || len(on.Content) != len(mn.Content) {
			return
		}
		switch on.Kind {
		case yaml.DocumentNode:
			for i := range on.Content {
				walk(on.Content[i], mn.Content[i], path, parent, set, false)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(on.Content); i += 2 {
				p := join(path, on.Content[i].Value)
				walk(on.Content[i], mn.Content[i], p, path, set, true)
				walk(on.Content[i+1], mn.Content[i+1], p, path, set, false)
			}
		case yaml.SequenceNode:
			for i := range on.Content {
				walk(on.Content[i], mn.Content[i], fmt.Sprintf("%s[%d]", path, i), path, set, false)
			}
		}
	}
	walk(orig, merged, "", "", "", false)
	return out
}

var (
	lineRE     = regexp.MustCompile(`^\s*(?:yaml: )?line (\d+): (.*)$`)
	notFoundRE = regexp.MustCompile(`^field (\S+) (not found|already set) in type \S+$`)
	unmarshRE  = regexp.MustCompile("^cannot unmarshal (!!\\w+)(?: `(.*)`)? into (\\S+)$")
	dupKeyRE   = regexp.MustCompile(`^mapping key "(.*)" already defined at line (\d+)$`)
	inTypeRE   = regexp.MustCompile(` in type [\w.*\[\]]+`)
)

// translate rewrites a decoding error of the merged document (lines of
// it, Go types) in the user's words, each problem on its own line after
// source.
func (o *origins) translate(err error, source string, orig *yaml.Node, merged []byte) error {
	var mdoc yaml.Node
	if yaml.Unmarshal(merged, &mdoc) != nil {
		return fmt.Errorf("%s: %v", source, err)
	}
	at := o.spots(orig, &mdoc)
	find := func(line int, key bool, value string) spot {
		var first *spot
		for i, s := range at[line] {
			if s.key != key {
				continue
			}
			if value == "" || s.value == value || (strings.HasSuffix(value, "...") && strings.HasPrefix(s.value, strings.TrimSuffix(value, "..."))) {
				return s
			}
			if first == nil {
				first = &at[line][i]
			}
		}
		if first != nil {
			return *first
		}
		if len(at[line]) > 0 {
			return at[line][0]
		}
		return spot{}
	}
	var out []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if strings.TrimSpace(l) == "yaml: unmarshal errors:" {
			continue
		}
		m := lineRE.FindStringSubmatch(l)
		if m == nil {
			out = append(out, source+": "+inTypeRE.ReplaceAllString(strings.TrimSpace(l), ""))
			continue
		}
		line, _ := strconv.Atoi(m[1])
		rest := m[2]
		switch {
		case notFoundRE.MatchString(rest):
			f := notFoundRE.FindStringSubmatch(rest)
			s := find(line, true, f[1])
			out = append(out, fmt.Sprintf("%s: %s: field %s %s in %s", source, o.where(s), bounds.Cut(f[1]), f[2], section(s.parent)))
		case unmarshRE.MatchString(rest):
			f := unmarshRE.FindStringSubmatch(rest)
			s := find(line, false, f[2])
			val := "a " + strings.TrimPrefix(f[1], "!!")
			if f[2] != "" {
				val = "`" + f[2] + "`"
			}
			out = append(out, fmt.Sprintf("%s: %s: cannot unmarshal %s into %s: want %s", source, o.where(s), val, fieldName(s.path), typeWords(f[3])))
		case dupKeyRE.MatchString(rest):
			f := dupKeyRE.FindStringSubmatch(rest)
			first, _ := strconv.Atoi(f[2])
			s := find(line, true, f[1])
			out = append(out, fmt.Sprintf("%s: %s: %s given twice (also at %s)", source, o.where(s), fieldName(s.path), o.where(find(first, true, f[1]))))
		default:
			s := find(line, false, "")
			out = append(out, fmt.Sprintf("%s: %s: %s: %s", source, o.where(s), fieldName(s.path), inTypeRE.ReplaceAllString(rest, "")))
		}
	}
	return &decodeError{msg: strings.Join(out, "\n"), err: err}
}

// decodeError is a translated decoding error; it unwraps to yaml's own
// (a *yaml.TypeError leaves the fields that decoded, for validation).
type decodeError struct {
	msg string
	err error
}

func (e *decodeError) Error() string { return e.msg }
func (e *decodeError) Unwrap() error { return e.err }

func section(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

func fieldName(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

// typeWords says what a Go type a field decodes into wants, in a
// scenario's words.
func typeWords(goType string) string {
	t := strings.TrimLeft(goType, "*")
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	case strings.HasSuffix(t, "Duration"):
		return "a duration like 5s"
	}
	switch t {
	case "int", "int64", "uint64", "uint":
		return "a whole number"
	case "int8":
		return "a whole number -128..127"
	case "int16":
		return "a whole number -32768..32767"
	case "int32":
		return "a whole number -2147483648..2147483647"
	case "uint8", "uint16", "uint32":
		return "a whole number 0.." + map[string]string{"uint8": "255", "uint16": "65535", "uint32": "4294967295"}[t]
	case "float32", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "string":
		return "a text"
	}
	return "a mapping of fields"
}
