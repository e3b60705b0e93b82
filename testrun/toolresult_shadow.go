package testrun

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"time"
	"unicode/utf8"
)

// ShadowRecord is one line of a shadow log: the gate's verdict on a tool
// result, kept beside the raw result, for a gate that is watched before it
// is enforced. Raw holds a result that is valid UTF-8, RawBase64 any other.
type ShadowRecord struct {
	Time      time.Time `json:"time"`
	Result    string    `json:"result"`
	JUnit     string    `json:"junit"`
	Accepted  bool      `json:"accepted"`
	Reasons   []string  `json:"reasons"`
	Raw       *string   `json:"raw,omitempty"`
	RawBase64 *string   `json:"raw_base64,omitempty"`
}

// NewShadowRecord is the record of verdict v on the raw result read from
// the file result, checked against the JUnit file junit, at t (UTC).
func NewShadowRecord(t time.Time, result, junit string, raw []byte, v ToolVerdict) ShadowRecord {
	rec := ShadowRecord{Time: t.UTC(), Result: result, JUnit: junit, Accepted: v.Accepted, Reasons: v.Reasons}
	s := string(raw)
	if !utf8.Valid(raw) {
		s = base64.StdEncoding.EncodeToString(raw)
		rec.RawBase64 = &s
	} else {
		rec.Raw = &s
	}
	return rec
}

// AppendShadow appends rec to the shadow log at path as one compact JSON
// line (created with mode 0600; <, > and & kept readable).
func AppendShadow(path string, rec ShadowRecord) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		_ = f.Close() // the encode error is the one to report
		return err
	}
	return f.Close()
}

// ReadToolResult reads a tool result from the file at path ("-": stdin),
// at most MaxToolResultBytes+1 bytes, so that CheckToolResult sees one too
// large.
func ReadToolResult(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(io.LimitReader(stdin, MaxToolResultBytes+1))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only: a failed read is reported
	return io.ReadAll(io.LimitReader(f, MaxToolResultBytes+1))
}
