package check

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/pelletier/go-toml/v2"
)

var errTOML = errors.New("check: pytest TOML configuration")

// pytestMode says how pytest reads the values of a table: "ini" for
// [tool.pytest.ini_options] (strings, or lists of strings, as in an INI
// file), "toml" for [tool.pytest] and pytest.toml's [pytest] (native TOML
// types, checked strictly).
type pytestMode string

const (
	modeINI  pytestMode = "ini"
	modeTOML pytestMode = "toml"
)

// pyprojectPytest reads pytest's options from a pyproject.toml as pytest 9
// does: [tool.pytest] holds them with native TOML types (addopts a list of
// strings), [tool.pytest.ini_options] in the INI style (addopts a string
// split as a shell would, or a list), and a file with both is refused, as
// pytest refuses it. found reports whether either table holds options;
// a pyproject.toml without them is not pytest's configuration.
func pyprojectPytest(b []byte) (opts map[string][]string, found bool, err error) {
	doc, err := decodeTOML(b)
	if err != nil {
		return nil, false, err
	}
	tool, ok, err := tomlTable(doc, "tool")
	if err != nil || !ok {
		return nil, false, err
	}
	pt, ok, err := tomlTable(tool, "pytest")
	if err != nil || !ok {
		return nil, false, err
	}
	native := map[string]any{}
	for k, v := range pt {
		if k != "ini_options" {
			native[k] = v
		}
	}
	ini, hasINI, err := tomlTable(pt, "ini_options")
	if err != nil {
		return nil, false, err
	}
	switch {
	case len(native) > 0 && hasINI:
		return nil, true, fmt.Errorf("%w: [tool.pytest] and [tool.pytest.ini_options] are both given (pytest refuses a file with both)", errTOML)
	case len(native) > 0:
		opts, err = pytestOptions(native, modeTOML, "[tool.pytest]")
		return opts, true, err
	case hasINI:
		opts, err = pytestOptions(ini, modeINI, "[tool.pytest.ini_options]")
		return opts, true, err
	}
	return nil, false, nil
}

// pytestTOMLFile reads pytest.toml or .pytest.toml (pytest 9): its [pytest]
// table, with native TOML types. The file is pytest's configuration even
// without the table; options written outside any table are refused, as
// pytest refuses them.
func pytestTOMLFile(b []byte) (map[string][]string, error) {
	doc, err := decodeTOML(b)
	if err != nil {
		return nil, err
	}
	pt, ok, err := tomlTable(doc, "pytest")
	if err != nil {
		return nil, err
	}
	if !ok {
		for k, v := range doc {
			if _, table := v.(map[string]any); !table {
				return nil, fmt.Errorf("%w: %q is outside any table (pytest wants its options under [pytest])", errTOML, k)
			}
		}
		return map[string][]string{}, nil
	}
	return pytestOptions(pt, modeTOML, "[pytest]")
}

// decodeTOML parses a TOML document with go-toml, which bounds how deeply
// arrays and inline tables nest (10000 levels). A syntax error names its
// line and column.
func decodeTOML(b []byte) (map[string]any, error) {
	if len(b) > maxConfigBytes {
		return nil, errConfigTooLarge
	}
	var doc map[string]any
	if err := toml.Unmarshal(b, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%w: line %d, column %d: %s", errTOML, row, col, de.Error())
		}
		return nil, fmt.Errorf("%w: %v", errTOML, err)
	}
	return doc, nil
}

// tomlTable returns the table at key in t: ok is false when there is none,
// and a value of another type is an error (pytest would fail on it).
func tomlTable(t map[string]any, key string) (map[string]any, bool, error) {
	v, ok := t[key]
	if !ok {
		return nil, false, nil
	}
	sub, ok := v.(map[string]any)
	if !ok {
		return nil, false, fmt.Errorf("%w: %q is %s, not a table", errTOML, key, tomlType(v))
	}
	return sub, true, nil
}

// pytestOptions turns a table of pytest options into the form the rest of
// this package reads: addopts as arguments, every other option as its
// value's text. in names the table for errors.
func pytestOptions(t map[string]any, mode pytestMode, in string) (map[string][]string, error) {
	opts := make(map[string][]string, len(t))
	for k, v := range t {
		if k != "addopts" {
			opts[k] = []string{pyStr(v)}
			continue
		}
		args, err := addoptsArgs(v, mode)
		if err != nil {
			return nil, fmt.Errorf("%w: %s addopts: %v", errTOML, in, err)
		}
		opts[k] = args
	}
	return opts, nil
}

// addoptsArgs reads addopts as pytest does: in the INI mode a string is
// split as shlex.split splits it and a list is taken as it is; in the TOML
// mode only a list of strings is accepted.
func addoptsArgs(v any, mode pytestMode) ([]string, error) {
	switch v := v.(type) {
	case []any:
		args := make([]string, 0, len(v))
		for i, item := range v {
			s, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("item %d is %s, want a string", i, tomlType(item))
			}
			args = append(args, s)
		}
		return args, nil
	case string:
		if mode == modeTOML {
			return nil, errors.New("is a string, want a list of strings (pytest 9 refuses a string here; use [tool.pytest.ini_options] for a command-line string)")
		}
		return splitArgs(v)
	}
	if mode == modeTOML {
		return nil, fmt.Errorf("is %s, want a list of strings", tomlType(v))
	}
	// The INI mode reads any other scalar as its text, one argument.
	return splitArgs(pyStr(v))
}

// pyStr spells a TOML value as Python's str() spells what tomllib returns,
// which is how pytest's INI mode reads a scalar that is not a string.
func pyStr(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		if v {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// tomlType names a decoded TOML value's type for an error message.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}
