package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// maxJSONDepth bounds the nesting the walker follows in a value of any
// shape (checkDuplicateKeys).
const maxJSONDepth = 64

// checkDuplicateKeys refuses a JSON document in which an object holds the
// same key twice, or two keys that differ only in case: encoding/json would
// keep the last one silently, and a reader downstream may keep the first.
// It is the walker that checks a run's form (checkJSON), given any value
// instead of the run's description; the errors are plain, for the caller
// to wrap.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	c := &checker{dec: dec, plain: true}
	if err := c.value(jsonAny); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the top-level value")
	}
	return nil
}
