package scenario

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kchaos/kchaos/internal/bounds"
)

// ReadInput reads a file kchaos takes as input (a scenario, suite, hosts
// or properties file), refusing one over bounds.InputFile before reading
// it whole. what names the kind of file in the message.
func ReadInput(file, what string) ([]byte, error) {
	b, err := bounds.ReadFile(file, bounds.InputFile)
	if errors.Is(err, bounds.ErrTooLarge) {
		return nil, fmt.Errorf("%s: %w (a %s file is a few KB)", bounds.Cut(file), err, what)
	}
	return b, err
}

// ParseYAML parses data, the one YAML document of source, into a node
// tree: an empty file is an empty mapping; a second document, a top level
// that is not a mapping and a document of more than bounds.YAMLNodes
// nodes with its aliases expanded are refused, before anything is decoded
// from it.
func ParseYAML(data []byte, source string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case err == nil:
		return nil, fmt.Errorf("%s: line %d: a second YAML document (after ---): the file holds one", source, max(second.Line, 1))
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("%s: after the first document (---): %v", source, err)
	}
	empty := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{empty}}
	}
	top := doc.Content[0]
	switch {
	case top.Kind == yaml.ScalarNode && top.Tag == "!!null":
		doc.Content[0] = empty // "---" alone, or "~"
	case top.Kind != yaml.MappingNode:
		return nil, fmt.Errorf("%s: line %d: want a mapping of fields (name: ..., cluster: ...), not %s", source, top.Line, kindWords(top))
	}
	if err := checkNodes(&doc, source); err != nil {
		return nil, err
	}
	return &doc, nil
}

// checkNodes refuses a document of more than bounds.YAMLNodes nodes with
// its aliases expanded (what decoding it into fields would build).
func checkNodes(doc *yaml.Node, source string) error {
	if n := countNodes(doc, map[*yaml.Node]int{}); n > bounds.YAMLNodes {
		return fmt.Errorf("%s: more than %d YAML nodes with aliases expanded: want at most %d", source, bounds.YAMLNodes, bounds.YAMLNodes)
	}
	return nil
}

// countNodes counts n's nodes, each alias as the nodes it stands for
// (memoised by anchor, so that nested aliases cost one visit each), and
// stops counting past the bound.
func countNodes(n *yaml.Node, memo map[*yaml.Node]int) int {
	if n == nil {
		return 0
	}
	if c, ok := memo[n]; ok {
		return c
	}
	memo[n] = bounds.YAMLNodes + 1 // an alias of its own ancestor: refused
	c := 1
	if n.Kind == yaml.AliasNode {
		c = countNodes(n.Alias, memo)
	}
	for _, ch := range n.Content {
		if c > bounds.YAMLNodes {
			break
		}
		c += countNodes(ch, memo)
	}
	c = min(c, bounds.YAMLNodes+1)
	memo[n] = c
	return c
}

func kindWords(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return fmt.Sprintf("the value %q", bounds.Cut(n.Value))
}
