package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxJSONDepth bounds the nesting checkDuplicateKeys walks.
const maxJSONDepth = 64

// checkDuplicateKeys refuses a JSON document in which an object holds the
// same key twice, or two keys that differ only in case: encoding/json would
// keep the last one silently, and a reader downstream may keep the first.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := walkValue(dec, 0); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the top-level value")
	}
	return nil
}

func walkValue(dec *json.Decoder, depth int) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("nested deeper than %d", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		seen := map[string]string{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			folded := strings.ToLower(key)
			if prev, dup := seen[folded]; dup {
				if prev == key {
					return fmt.Errorf("key %q given twice", key)
				}
				return fmt.Errorf("keys %q and %q differ only in case", prev, key)
			}
			seen[folded] = key
			if err := walkValue(dec, depth+1); err != nil {
				return err
			}
		}
	case '[':
		for dec.More() {
			if err := walkValue(dec, depth+1); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}
