package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema is the input schema inferred from T (its fields' json and
// jsonschema tags), with the bounds the tool applies stated in it: every
// offset from 0 to maxOffset, and the lists of items between their
// bounds (a list, never null). The SDK validates each call's arguments
// against it before the tool runs.
func inputSchema[T any](lists map[string][2]int) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		// T is one of the package's argument types: a failure is a
		// programming error, caught by every test that lists the tools.
		panic(fmt.Sprintf("mcpserver: input schema: %v", err))
	}
	if p := s.Properties["offset"]; p != nil {
		p.Minimum, p.Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(float64(maxOffset))
	}
	for name, b := range lists {
		p := s.Properties[name]
		p.Types, p.Type = nil, "array"
		p.MinItems, p.MaxItems = jsonschema.Ptr(b[0]), jsonschema.Ptr(b[1])
	}
	return s
}
