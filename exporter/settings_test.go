package exporter_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// given is a Settings.Given of the named flags.
func given(flags ...string) func(string) bool {
	return func(f string) bool {
		for _, g := range flags {
			if g == f {
				return true
			}
		}
		return false
	}
}

// base is the settings a command line without flags gives.
func baseSettings() exporter.Settings {
	return exporter.Settings{Format: "otlp", MaxCaseEvents: translate.DefaultMaxCaseEvents, CaseSpans: "none", Events: "span"}
}

func TestSettingsOptions(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(s *exporter.Settings)
		check   func(t *testing.T, o exporter.Options, out string)
		wantErr string
	}{
		{name: "defaults", check: func(t *testing.T, o exporter.Options, out string) {
			assert.Equal(t, exporter.FormatOTLP, o.Format)
			assert.Empty(t, out)
			assert.Equal(t, translate.EventsSpan, o.Events)
			assert.Equal(t, translate.CaseSpansNone, o.CaseSpans)
			assert.Zero(t, o.MaxCaseEvents, "the default, which bounds the span events only")
			assert.Nil(t, o.OTLP.Headers, "the environment's headers stay")
		}},
		{name: "-o alone writes OTLP/JSON", edit: func(s *exporter.Settings) { s.Output = "x.json" },
			check: func(t *testing.T, o exporter.Options, out string) {
				assert.Equal(t, exporter.FormatOTLPJSON, o.Format)
				assert.Equal(t, "x.json", out)
			}},
		{name: "-o - is stdout", edit: func(s *exporter.Settings) { s.Output = "-" },
			check: func(t *testing.T, o exporter.Options, out string) {
				assert.Equal(t, exporter.FormatOTLPJSON, o.Format)
				assert.Empty(t, out)
			}},
		{name: "otel is otlp-json", edit: func(s *exporter.Settings) { s.Format = "otel" },
			check: func(t *testing.T, o exporter.Options, _ string) { assert.Equal(t, exporter.FormatOTLPJSON, o.Format) }},
		{name: "every OTLP setting", edit: func(s *exporter.Settings) {
			s.Protocol, s.Endpoint, s.Insecure, s.Compression = "http/protobuf", "h:1", true, "gzip"
			s.Headers, s.Timeout = []string{" a = 1 ", "b=x=y"}, 3*time.Second
			s.Given = given("otlp-timeout")
		}, check: func(t *testing.T, o exporter.Options, _ string) {
			assert.Equal(t, exporter.OTLPOptions{Protocol: exporter.ProtocolHTTPProtobuf, Endpoint: "h:1", Insecure: true,
				Headers: map[string]string{"a": "1", "b": "x=y"}, Timeout: 3 * time.Second, Compression: "gzip"}, o.OTLP)
		}},
		{name: "a cap given", edit: func(s *exporter.Settings) { s.MaxCaseEvents, s.Given = 7, given("max-case-events") },
			check: func(t *testing.T, o exporter.Options, _ string) { assert.Equal(t, 7, o.MaxCaseEvents) }},
		{name: "events and case spans", edit: func(s *exporter.Settings) { s.Events, s.CaseSpans = "both", "all" },
			check: func(t *testing.T, o exporter.Options, _ string) {
				assert.Equal(t, translate.EventsBoth, o.Events)
				assert.Equal(t, translate.CaseSpansAll, o.CaseSpans)
			}},
		{name: "placement", edit: func(s *exporter.Settings) { s.JobID, s.Provision, s.ServiceName = "j", true, "svc" },
			check: func(t *testing.T, o exporter.Options, _ string) {
				assert.Equal(t, "j", o.JobID)
				assert.True(t, o.Provision)
				assert.Equal(t, "svc", o.ServiceName)
			}},
		{name: "unknown format", edit: func(s *exporter.Settings) { s.Format = "zipkin" }, wantErr: `--format "zipkin"`},
		{name: "-o with otlp", edit: func(s *exporter.Settings) { s.Output, s.Given = "x", given("format") }, wantErr: "-o is for --format otlp-json"},
		{name: "OTLP flag with a file", edit: func(s *exporter.Settings) { s.Format, s.Given = "otlp-json", given("otlp-insecure") },
			wantErr: "--otlp-insecure is for sending (--format otlp), not for --format otlp-json"},
		{name: "unknown protocol", edit: func(s *exporter.Settings) { s.Protocol = "http/json" }, wantErr: `--protocol "http/json": want grpc or http/protobuf`},
		{name: "header without =", edit: func(s *exporter.Settings) { s.Headers = []string{"novalue"} }, wantErr: "--otlp-header"},
		{name: "header without key", edit: func(s *exporter.Settings) { s.Headers = []string{"=v"} }, wantErr: "--otlp-header"},
		{name: "zero timeout given", edit: func(s *exporter.Settings) { s.Given = given("otlp-timeout") }, wantErr: "--otlp-timeout 0s"},
		{name: "bad compression", edit: func(s *exporter.Settings) { s.Compression = "zstd" }, wantErr: "--otlp-compression"},
		{name: "zero cap", edit: func(s *exporter.Settings) { s.MaxCaseEvents = 0 }, wantErr: "--max-case-events 0"},
		{name: "bad case spans", edit: func(s *exporter.Settings) { s.CaseSpans = "failing" }, wantErr: `--case-spans "failing": want none, failed or all`},
		{name: "bad events", edit: func(s *exporter.Settings) { s.Events = "logs" }, wantErr: `--events "logs": want span, log or both`},
		{name: "bad parent", edit: func(s *exporter.Settings) { s.Parent = "00-xyz" }, wantErr: "--parent"},
		{name: "turn without session", edit: func(s *exporter.Settings) { s.Turns = []string{"1"} }, wantErr: "--turn is for --session"},
		{name: "session with job", edit: func(s *exporter.Settings) { s.Session, s.JobID = "s", "j" }, wantErr: "--session cannot go with --job or --base"},
		{name: "session with base", edit: func(s *exporter.Settings) { s.Session, s.Provision = "s", true }, wantErr: "--session cannot go with --job or --base"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := baseSettings()
			if c.edit != nil {
				c.edit(&s)
			}
			o, out, err := s.Options(noEnv, nil)
			if c.wantErr != "" {
				require.ErrorIs(t, err, exporter.ErrSettings)
				assert.Contains(t, err.Error(), c.wantErr)
				assert.NotContains(t, err.Error(), "invalid settings", "the message is the setting's alone")
				return
			}
			require.NoError(t, err)
			c.check(t, o, out)
		})
	}
}

func TestSettingsSessionTurns(t *testing.T) {
	read := func(path string) (*testrun.Run, error) {
		if path == "missing.json" {
			return nil, errors.New("no such file")
		}
		return &testrun.Run{ID: path}, nil
	}
	ids := func(s *translate.Session) map[int][]string {
		m := map[int][]string{}
		for _, turn := range s.Turns {
			for _, r := range turn.Runs {
				m[turn.Number] = append(m[turn.Number], r.ID)
			}
		}
		return m
	}
	cases := []struct {
		name    string
		turns   []string
		args    []string
		want    map[int][]string
		wantErr string
	}{
		{name: "bare turn", turns: []string{"2"}, args: []string{"a", "b"}, want: map[int][]string{2: {"a", "b"}}},
		{name: "pairs then bare", turns: []string{"1=a", "3=b", "1=c", "2"}, args: []string{"d"}, want: map[int][]string{1: {"a", "c"}, 3: {"b"}, 2: {"d"}}},
		{name: "no turn", wantErr: "--session needs --turn"},
		{name: "bad number", turns: []string{"x"}, wantErr: `--turn "x"`},
		{name: "negative", turns: []string{"-1"}, wantErr: `--turn "-1"`},
		{name: "two bare", turns: []string{"1", "2"}, args: []string{"a"}, wantErr: "given twice (1 and 2)"},
		{name: "bare without runs", turns: []string{"1", "2=a"}, wantErr: "--turn 1 has no RUN.json"},
		{name: "runs without bare", turns: []string{"2=a"}, args: []string{"b"}, wantErr: "need a --turn N"},
		{name: "pair without path", turns: []string{"2="}, wantErr: `--turn "2=": no RUN.json`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := exporter.Settings{Session: "s", Turns: c.turns}
			got, err := s.SessionTurns(c.args, read)
			if c.wantErr != "" {
				require.ErrorIs(t, err, exporter.ErrSettings)
				assert.Contains(t, err.Error(), c.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "s", got.ID)
			assert.Equal(t, c.want, ids(got))
		})
	}
	_, err := exporter.Settings{Session: "s", Turns: []string{"1=missing.json"}}.SessionTurns(nil, read)
	require.Error(t, err)
	assert.NotErrorIs(t, err, exporter.ErrSettings, "read's error is not a settings error")
}

func TestSettingsOneTurn(t *testing.T) {
	n, err := exporter.Settings{Session: "s", Turns: []string{"3"}}.OneTurn()
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	for _, turns := range [][]string{nil, {"1", "2"}, {"1=a.json"}, {"-1"}, {"x"}} {
		_, err := exporter.Settings{Session: "s", Turns: turns}.OneTurn()
		assert.ErrorIs(t, err, exporter.ErrSettings, "%q", turns)
	}
}
