package main

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// readOneSpan reads the OTLP/JSON lines of path and returns their one span.
func readOneSpan(t *testing.T, path string) ptrace.Span {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var spans []ptrace.Span
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	var u ptrace.JSONUnmarshaler
	for sc.Scan() {
		td, err := u.UnmarshalTraces(sc.Bytes())
		require.NoError(t, err)
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			ss := td.ResourceSpans().At(i).ScopeSpans()
			for j := 0; j < ss.Len(); j++ {
				for k := 0; k < ss.At(j).Spans().Len(); k++ {
					spans = append(spans, ss.At(j).Spans().At(k))
				}
			}
		}
	}
	require.NoError(t, sc.Err())
	require.Len(t, spans, 1)
	return spans[0]
}

// eventsNamed returns the events of s named name, in order.
func eventsNamed(s ptrace.Span, name string) []ptrace.SpanEvent {
	var out []ptrace.SpanEvent
	for i := 0; i < s.Events().Len(); i++ {
		if e := s.Events().At(i); e.Name() == name {
			out = append(out, e)
		}
	}
	return out
}

func attrInt(t *testing.T, m pcommon.Map, k string) int64 {
	t.Helper()
	v, ok := m.Get(k)
	require.True(t, ok, "attribute %s", k)
	return v.Int()
}

func TestVerdictExport(t *testing.T) {
	dir := t.TempDir()
	ok := map[string]testrun.Outcome{"a": passed, "b": failed, "c": passed}
	broken := map[string]testrun.Outcome{"a": failed, "b": failed, "c": passed}
	repaired := map[string]testrun.Outcome{"a": passed, "b": passed, "c": passed}
	p1 := writeRun(t, dir, "p1", testrun.KindBase, "P", ok)
	p2 := writeRun(t, dir, "p2", testrun.KindBase, "P", ok)
	b1 := writeRun(t, dir, "b1", testrun.KindAttempt, "Q", broken)
	b2 := writeRun(t, dir, "b2", testrun.KindAttempt, "Q", broken)
	r1 := writeRun(t, dir, "r1", testrun.KindAttempt, "Q", repaired)
	r2 := writeRun(t, dir, "r2", testrun.KindAttempt, "Q", repaired)

	tests := []struct {
		name      string
		patch     []string
		code      int
		decision  string
		broken    int64
		repaired  int64
		unchanged int64
		ids       []string
	}{
		{"broken", []string{b1, b2}, exitFailed, "reject", 1, 0, 2, []string{"a"}},
		{"repaired", []string{r1, r2}, exitOK, "allow", 0, 1, 2, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var spanIDs []pcommon.SpanID
			for range 2 {
				out := filepath.Join(t.TempDir(), "verdict.jsonl")
				code, _, errs := runCmd(t, "verdict", "--parent", p1, "--parent", p2, "--patch", tt.patch[0], "--patch", tt.patch[1],
					"--export", "--format", "otlp-json", "-o", out, "--job", "job-7")
				require.Equal(t, tt.code, code, errs)
				assert.Contains(t, errs, "exported the verdict ("+tt.decision+")")

				s := readOneSpan(t, out)
				assert.Equal(t, semconv.SpanJobVerify, s.Name())
				job, _ := s.Attributes().Get(string(semconv.JobIDKey))
				assert.Equal(t, "job-7", job.Str())
				assert.Len(t, eventsNamed(s, semconv.EventTestRun), 2, "the patch runs' test.run events")
				verdicts := eventsNamed(s, semconv.EventTestVerdict)
				require.Len(t, verdicts, 1)
				v := verdicts[0]
				last := s.Events().At(s.Events().Len() - 1)
				assert.Equal(t, semconv.EventTestVerdict, last.Name(), "the verdict follows the runs' events")
				for i := 0; i < s.Events().Len()-1; i++ {
					assert.Less(t, s.Events().At(i).Timestamp(), v.Timestamp())
				}
				assert.LessOrEqual(t, v.Timestamp(), s.EndTimestamp())
				d, _ := v.Attributes().Get(string(semconv.TestVerdictDecisionKey))
				assert.Equal(t, tt.decision, d.Str())
				assert.Equal(t, tt.broken, attrInt(t, v.Attributes(), string(semconv.TestVerdictBrokenKey)))
				assert.Equal(t, tt.repaired, attrInt(t, v.Attributes(), string(semconv.TestVerdictRepairedKey)))
				assert.Equal(t, tt.unchanged, attrInt(t, v.Attributes(), string(semconv.TestVerdictUnchangedKey)))
				assert.Equal(t, int64(0), attrInt(t, v.Attributes(), string(semconv.TestVerdictFrozenKey)))
				assert.Equal(t, int64(0), attrInt(t, v.Attributes(), string(semconv.TestVerdictInconclusiveKey)))
				ids, _ := v.Attributes().Get(string(semconv.TestVerdictBrokenIDsKey))
				got := []string{}
				for _, x := range ids.Slice().AsRaw() {
					got = append(got, x.(string))
				}
				assert.Equal(t, tt.ids, got)
				_, hasReason := v.Attributes().Get(string(semconv.TestVerdictReasonKey))
				assert.False(t, hasReason)
				spanIDs = append(spanIDs, s.SpanID())
			}
			assert.Equal(t, spanIDs[0], spanIDs[1], "the span id is deterministic")
		})
	}

	t.Run("export flags need --export", func(t *testing.T) {
		code, _, errs := runCmd(t, "verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2, "--job", "j")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errs, "--job is an export flag: add --export")
	})
	t.Run("otlp-json needs -o", func(t *testing.T) {
		code, _, errs := runCmd(t, "verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2, "--export", "--format", "otlp-json")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errs, "needs -o FILE")
	})
}

func TestPairExport(t *testing.T) {
	dir := gitRepo(t, map[string]string{"outcomes.txt": "a pass\nb fail\nc pass\n"})
	commitFiles(t, dir, "patch", map[string]string{"outcomes.txt": "a fail\nb pass\nc pass\n"})
	out := filepath.Join(t.TempDir(), "pair.jsonl")
	code, _, errs := runPairInProc(t, context.Background(), pairEnv(t), "-C", dir, "--out", filepath.Join(t.TempDir(), "runs"),
		"--export", "-o", out, "--job", "job-9", "--", "sh", "-c", junitCheck)
	require.Equal(t, exitFailed, code, errs)
	s := readOneSpan(t, out)
	assert.Len(t, eventsNamed(s, semconv.EventTestRun), 2)
	verdicts := eventsNamed(s, semconv.EventTestVerdict)
	require.Len(t, verdicts, 1)
	d, _ := verdicts[0].Attributes().Get(string(semconv.TestVerdictDecisionKey))
	assert.Equal(t, "reject", d.Str())
	assert.Equal(t, int64(1), attrInt(t, verdicts[0].Attributes(), string(semconv.TestVerdictBrokenKey)))
	assert.Equal(t, int64(1), attrInt(t, verdicts[0].Attributes(), string(semconv.TestVerdictRepairedKey)))
}

// traceReceiver is an OTLP/gRPC trace receiver on 127.0.0.1.
type traceReceiver struct {
	ptraceotlp.UnimplementedGRPCServer
	mu  sync.Mutex
	got []ptrace.Traces
}

func (r *traceReceiver) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	td := ptrace.NewTraces()
	req.Traces().CopyTo(td)
	r.got = append(r.got, td)
	return ptraceotlp.NewExportResponse(), nil
}

// The verdict also goes over OTLP/gRPC, --otlp-endpoint given.
func TestVerdictExportOTLP(t *testing.T) {
	dir := t.TempDir()
	ok := map[string]testrun.Outcome{"a": passed, "b": passed}
	broken := map[string]testrun.Outcome{"a": failed, "b": passed}
	p1 := writeRun(t, dir, "p1", testrun.KindBase, "P", ok)
	p2 := writeRun(t, dir, "p2", testrun.KindBase, "P", ok)
	b1 := writeRun(t, dir, "b1", testrun.KindAttempt, "Q", broken)
	b2 := writeRun(t, dir, "b2", testrun.KindAttempt, "Q", broken)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	recv := &traceReceiver{}
	ptraceotlp.RegisterGRPCServer(srv, recv)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)

	code, _, errs := runCmd(t, "verdict", "--parent", p1, "--parent", p2, "--patch", b1, "--patch", b2,
		"--export", "--otlp-endpoint", "http://"+ln.Addr().String(), "--otlp-timeout", "5s", "--job", "job-8")
	require.Equal(t, exitFailed, code, errs)
	recv.mu.Lock()
	defer recv.mu.Unlock()
	require.Len(t, recv.got, 1)
	require.Equal(t, 1, recv.got[0].SpanCount())
	s := recv.got[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	verdicts := eventsNamed(s, semconv.EventTestVerdict)
	require.Len(t, verdicts, 1)
	ids, _ := verdicts[0].Attributes().Get(string(semconv.TestVerdictBrokenIDsKey))
	assert.Equal(t, []any{"a"}, ids.Slice().AsRaw())
}
