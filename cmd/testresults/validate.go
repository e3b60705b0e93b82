package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

func init() {
	register(command{name: "validate", synopsis: "the fail-closed gate for a test tool's JSON result", run: runValidate})
}

type validateOptions struct {
	schema bool
	shadow string
	dir    string
	json   bool
}

func newValidateFlags() (*pflag.FlagSet, *validateOptions) {
	fs := newFlagSet("validate")
	o := &validateOptions{}
	fs.BoolVar(&o.schema, "schema", false, "print the JSON Schema of a tool result and exit")
	fs.StringVar(&o.shadow, "shadow", "", "shadow mode: append the raw result and the verdict to LOG, exit 0")
	fs.StringVar(&o.dir, "dir", "", "the directory a relative junit_path is relative to (default: the current directory)")
	fs.BoolVar(&o.json, "json", false, "print the verdict as JSON on stdout")
	return fs, o
}

// shadowRecord is one line of the shadow log.
type shadowRecord struct {
	Time      time.Time `json:"time"`
	Result    string    `json:"result"`
	JUnit     string    `json:"junit"`
	Accepted  bool      `json:"accepted"`
	Reasons   []string  `json:"reasons"`
	Raw       *string   `json:"raw,omitempty"`
	RawBase64 *string   `json:"raw_base64,omitempty"`
}

func appendShadow(path string, rec shadowRecord) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	enc := encoderLine(f)
	if err := enc(rec); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// encoderLine returns a function writing one compact JSON line to w.
func encoderLine(w io.Writer) func(any) error {
	return func(v any) error {
		b, err := marshalLine(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
}

func runValidate(_ context.Context, args []string, env Env) error {
	fs, o := newValidateFlags()
	cf := flagsFor("validate", clidoc.Help("validate"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if o.schema {
		if _, err := env.Stdout.Write(testrun.ToolResultSchema); err != nil {
			return withCode(exitFailed)
		}
		return nil
	}
	if fs.NArg() != 2 {
		return cf.usageErr("want RESULT.json and JUNIT.xml, got %d arguments", fs.NArg())
	}
	dir := o.dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return rejected(err)
		}
		dir = wd
	}
	var raw []byte
	var readErr error
	if fs.Arg(0) == "-" {
		raw, readErr = io.ReadAll(io.LimitReader(env.Stdin, testrun.MaxToolResultBytes+1))
	} else {
		var f *os.File
		if f, readErr = os.Open(fs.Arg(0)); readErr == nil {
			raw, readErr = io.ReadAll(io.LimitReader(f, testrun.MaxToolResultBytes+1))
			f.Close()
		}
	}
	var v testrun.ToolVerdict
	if readErr != nil {
		v = testrun.ToolVerdict{Reasons: []string{"the result could not be read: " + readErr.Error()}}
	} else {
		v = testrun.CheckToolResult(raw, report.ToolEvidence(fs.Arg(1), dir))
	}

	if o.shadow != "" {
		rec := shadowRecord{Time: time.Now().UTC(), Result: fs.Arg(0), JUnit: fs.Arg(1), Accepted: v.Accepted, Reasons: v.Reasons}
		if utf8.Valid(raw) {
			s := string(raw)
			rec.Raw = &s
		} else {
			s := base64.StdEncoding.EncodeToString(raw)
			rec.RawBase64 = &s
		}
		if err := appendShadow(o.shadow, rec); err != nil {
			fmt.Fprintf(env.Stderr, "testresults validate: --shadow: %v\n", err)
		}
		fmt.Fprintf(env.Stderr, "testresults validate: shadow: %s\n", verdictWord(v))
		return nil
	}
	if o.json {
		if err := writeJSON(env.Stdout, v); err != nil {
			return err
		}
	} else {
		out := term.NewWriter(env.Stdout)
		fmt.Fprintln(out, verdictWord(v))
		for _, r := range v.Reasons {
			fmt.Fprintf(out, "  - %s\n", r)
		}
	}
	if !v.Accepted {
		return withCode(exitFailed)
	}
	return nil
}

func verdictWord(v testrun.ToolVerdict) string {
	if v.Accepted {
		return "accepted"
	}
	return fmt.Sprintf("rejected (%d reasons)", len(v.Reasons))
}

// marshalLine is v as one compact JSON line, keeping <, > and & readable.
func marshalLine(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}
