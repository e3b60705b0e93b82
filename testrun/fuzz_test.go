package testrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// runSeeds are the runs the JSON fuzz target starts from: the exact form,
// each hostile change to it, and the runs the repository's golden files and
// fixtures hold.
func runSeeds(f *testing.F) {
	f.Add([]byte(validRunJSON))
	for _, tt := range hostileRuns {
		f.Add([]byte(strings.Replace(validRunJSON, tt.old, tt.new, 1)))
	}
	f.Add([]byte(validNotRunJSON))
	f.Add([]byte(strings.Replace(validNotRunJSON, `"not_run_count":2`, `"not_run_count":1`, 1)))
	for _, pat := range []string{
		"../report/testdata/golden/*/expected.json",
		"../translate/testdata/*/*.json",
		"../testdata/export/*.json",
	} {
		paths, err := filepath.Glob(pat)
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
}

// FuzzRunJSON: reading never panics; whatever is accepted is a valid run
// whose stated trusted and counted are the rules' own, and it reads back
// from its JSON form unchanged, the form then being a fixed point.
func FuzzRunJSON(f *testing.F) {
	runSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Run
		if err := r.UnmarshalJSON(data); err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("accepted run fails Validate: %v", err)
		}
		if r.Counts != nil && !r.Counts.Valid() {
			t.Fatalf("accepted counts are not valid: %+v", *r.Counts)
		}
		var flags struct {
			Trusted *bool `json:"trusted"`
			Counted *bool `json:"counted"`
		}
		if err := json.Unmarshal(data, &flags); err != nil || flags.Trusted == nil || flags.Counted == nil {
			t.Fatalf("accepted run without both flags (%v)", err)
		}
		if *flags.Trusted != r.Trusted() || *flags.Counted != r.Counted() {
			t.Fatalf("accepted flags trusted=%t counted=%t, the rules give %t %t", *flags.Trusted, *flags.Counted, r.Trusted(), r.Counted())
		}

		out, err := r.MarshalJSON()
		if err != nil {
			t.Fatalf("marshal accepted run: %v", err)
		}
		var back Run
		if err := back.UnmarshalJSON(out); err != nil {
			t.Fatalf("own JSON form refused: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(r, back) {
			t.Fatalf("run changed on the round trip:\n%+v\n%+v", r, back)
		}
		again, err := back.MarshalJSON()
		if err != nil {
			t.Fatalf("marshal again: %v", err)
		}
		if string(again) != string(out) {
			t.Fatalf("JSON form is not a fixed point:\n%s\n%s", out, again)
		}
	})
}

// FuzzReadExpectedIDs: reading never panics, and what is accepted is
// between one and MaxExpectedIDs ids, sorted and distinct, none empty or
// holding a line break when read from lines.
func FuzzReadExpectedIDs(f *testing.F) {
	for _, s := range []string{"a::b\nc::d\n", "\r\n\n  x\r\n", "b\na\nb", "", "\xff", validRunJSON, validNotRunJSON, " {\"id\":1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ids, err := ReadExpectedIDs(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		if len(ids) == 0 || len(ids) > MaxExpectedIDs {
			t.Fatalf("accepted %d ids", len(ids))
		}
		fromRun := strings.HasPrefix(strings.TrimLeft(string(data), " \t\r\n"), "{")
		for i, id := range ids {
			if id == "" || (i > 0 && id <= ids[i-1]) {
				t.Fatalf("ids not sorted, distinct and non-empty: %q", ids)
			}
			if !fromRun && strings.ContainsAny(id, "\r\n\x00") {
				t.Fatalf("id %q holds a line break or NUL", id)
			}
		}
	})
}

// Secrets planted in FuzzRedact's input. None holds '[', ']' or an upper-case
// letter, so no replacement by Redacted can make one up again.
const (
	plantedEnv      = "q7w8e9r0t1y2u3"
	plantedBearer   = "z9x8c7v6b5n4m3"
	plantedPassword = "p0o9i8u7y6t5"
	plantedAWS      = "AKIAQWERTYUIOP234567"
)

// FuzzRedact: redaction never panics, keeps valid UTF-8 valid, is
// idempotent (a message redacted when the run is built and again on export
// reads the same), and no secret planted on a line of its own survives,
// whatever surrounds it.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"", "plain message", "password=hunter2 user=bob", "Authorization: Bearer abc.def.ghi123",
		"postgres://app:s3cret@db:5432/x", "key AKIAIOSFODNN7EXAMPLE was used",
		`{"client_secret":"abc def","id":1}`, "token ghp_0123456789abcdefghijABCDEFGHIJ012345 leaked",
		"key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\ndone",
		"x -----BEGIN PRIVATE KEY-----\nMIIE", "ran deploy --password hunter2 --user bob", "tool -token abc123",
		`api_key="abc\"def" rest`, "token := \"abc123\"", "client_secret => 'abc'", "password=[REDACTED] ok",
		"TestAuth: auth_test.go:15: expected status 200", "config token: s3cr3t-v4lue here",
		"assert response.token == 'x'", "bad \xff byte", strings.Repeat("é", 100),
	} {
		f.Add(s, "")
	}
	f.Add("a", "b")
	r := NewRedactor([]string{"DEPLOY_TOKEN=" + plantedEnv, "HOME=/home/user"})
	f.Fuzz(func(t *testing.T, before, after string) {
		for _, s := range []string{before, after, before + after} {
			once := r.Redact(s)
			if utf8.ValidString(s) && !utf8.ValidString(once) {
				t.Fatalf("valid UTF-8 %q redacted to invalid %q", s, once)
			}
			if twice := r.Redact(once); twice != once {
				t.Fatalf("not idempotent:\n in   %q\n once %q\n twice %q", s, once, twice)
			}
		}
		for _, planted := range []struct{ line, secret string }{
			{"used " + plantedEnv + " here", plantedEnv},
			{"Authorization: Bearer " + plantedBearer, plantedBearer},
			{"got Bearer " + plantedBearer + " back", plantedBearer},
			{"password=" + plantedPassword + " user=bob", plantedPassword},
			{"key " + plantedAWS + " was used", plantedAWS},
		} {
			msg := before + "\n" + planted.line + "\n" + after
			if out := r.Redact(msg); strings.Contains(out, planted.secret) {
				t.Fatalf("planted secret survives:\n in  %q\n out %q", msg, out)
			}
		}
	})
}
