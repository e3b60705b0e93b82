package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"
	"unicode/utf8"
)

// The JSON forms of quarantine: an entry as listed (flaky quarantine list
// --json, and the query API's GET /api/repos/quarantine) is a
// QuarantineEntry's keys and whether it has expired; an entry a person
// asks to add (the API's POST body) is the same keys but created, which
// the store stamps.

// ListedQuarantine is an entry as a listing shows it: its fields, and
// whether it had expired when it was listed.
type ListedQuarantine struct {
	QuarantineEntry
	Expired bool `json:"expired"`
}

// QuarantineListing is entries as listed at now, in their order: each
// marked expired when it no longer counts at now. It is never nil.
func QuarantineListing(entries []QuarantineEntry, now time.Time) []ListedQuarantine {
	out := make([]ListedQuarantine, 0, len(entries))
	for _, e := range entries {
		out = append(out, ListedQuarantine{QuarantineEntry: e, Expired: e.Expired(now)})
	}
	return out
}

// MaxQuarantineRequest bounds the JSON form of an entry to add, in bytes:
// an entry within the bounds of its fields is far smaller.
const MaxQuarantineRequest = 64 << 10

// quarantineRequest is the JSON form of an entry to add: QuarantineEntry's
// keys but created; environment may be absent (every environment), and
// expires is an RFC 3339 time.
type quarantineRequest struct {
	Repository  string `json:"repository"`
	Environment string `json:"environment,omitempty"`
	TestID      string `json:"test_id"`
	Owner       string `json:"owner"`
	Reason      string `json:"reason"`
	Expires     string `json:"expires"`
}

// quarantineRequestSpec is the exact form ReadQuarantineRequest accepts,
// read off quarantineRequest as the run's form is read off its type.
var quarantineRequestSpec = specOf(reflect.TypeFor[quarantineRequest](), false)

// ErrQuarantineForm is wrapped, besides ErrQuarantine, by every refusal of
// ReadQuarantineRequest: the input is not the JSON form of an entry, as
// against an entry whose fields CheckQuarantine refuses.
var ErrQuarantineForm = errors.New("not the JSON form of a quarantine entry")

// ReadQuarantineRequest reads the JSON form of one entry to add, strictly:
// at most MaxQuarantineRequest bytes of UTF-8 holding one object and
// nothing after it; its keys those of a listed entry but created and
// expired ("repository", "environment", "test_id", "owner", "reason",
// "expires"), each once and spelled exactly so, none other; every one but
// environment present; each a string, never null; expires an RFC 3339
// time. It does not judge the fields (CheckQuarantine does, where the entry
// is added). Every refusal wraps ErrQuarantine and ErrQuarantineForm.
func ReadQuarantineRequest(r io.Reader) (QuarantineEntry, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxQuarantineRequest+1))
	if err != nil {
		return QuarantineEntry{}, err
	}
	refuse := func(format string, args ...any) (QuarantineEntry, error) {
		return QuarantineEntry{}, fmt.Errorf("%w: %w: %s", ErrQuarantine, ErrQuarantineForm, fmt.Sprintf(format, args...))
	}
	switch {
	case len(data) > MaxQuarantineRequest:
		return refuse("larger than %d KiB", MaxQuarantineRequest>>10)
	case !utf8.Valid(data):
		return refuse("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	c := &checker{dec: dec, plain: true, path: []segment{{key: "entry", kind: kindObject}}}
	if err := c.value(quarantineRequestSpec); err != nil {
		return refuse("%v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return refuse("data after the entry's object")
	}
	var req quarantineRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return refuse("%v", err)
	}
	expires, err := time.Parse(time.RFC3339, req.Expires)
	if err != nil {
		return refuse("expires %q is not an RFC 3339 time (2006-01-02T15:04:05Z)", clipValue(req.Expires))
	}
	return QuarantineEntry{
		Repository: req.Repository, Environment: req.Environment, TestID: req.TestID,
		Owner: req.Owner, Reason: req.Reason, Expires: expires,
	}, nil
}
