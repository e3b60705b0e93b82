package check

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxDeclared bounds the globs a repository may declare.
const maxDeclared = 256

var errYAML = errors.New("check: environment.yaml")

// verifyReports reads the verify_reports key of .hangar/environment.yaml
// with go.yaml.in/yaml/v3: a top-level key of the file's documents whose
// value is a list of strings (block or flow form) or one string. Every
// other key is left alone. A null value or a null entry declares nothing;
// a value of any other shape (a mapping, a number, a nested list), the key
// given twice, more than maxDeclared globs, or a document that is not YAML
// is an error naming its line. The library bounds nesting and alias
// expansion, and the file is at most maxConfigBytes.
func verifyReports(b []byte) ([]string, error) {
	if len(b) > maxConfigBytes {
		return nil, errConfigTooLarge
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	var globs []string
	found := 0
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errYAML, err)
		}
		root := &doc
		if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
			root = root.Content[0]
		}
		if root.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(root.Content); i += 2 {
			key, val := root.Content[i], root.Content[i+1]
			if key.Kind != yaml.ScalarNode || key.Value != "verify_reports" {
				continue
			}
			if found > 0 {
				return nil, fmt.Errorf("%w: line %d: verify_reports is given twice (first on line %d)", errYAML, key.Line, found)
			}
			found = key.Line
			if globs, err = declaredList(val); err != nil {
				return nil, err
			}
		}
	}
	return globs, nil
}

// declaredList reads verify_reports' value: a list of strings or one.
func declaredList(v *yaml.Node) ([]string, error) {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	var globs []string
	for _, it := range items {
		if it.Kind == yaml.AliasNode && it.Alias != nil {
			it = it.Alias
		}
		if it.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%w: line %d: verify_reports: want a list of globs, found a %s", errYAML, it.Line, yamlKind(it))
		}
		switch it.ShortTag() {
		case "!!null":
			continue
		case "!!str":
		default:
			return nil, fmt.Errorf("%w: line %d: verify_reports: %q is %s, want a glob (quote it to make it a string)", errYAML, it.Line, it.Value, it.ShortTag())
		}
		if it.Value == "" {
			continue
		}
		if len(globs) >= maxDeclared {
			return nil, fmt.Errorf("%w: verify_reports holds more than %d globs", errYAML, maxDeclared)
		}
		globs = append(globs, it.Value)
	}
	return globs, nil
}

func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "nested list"
	}
	return "value of another kind"
}
