package exporter

import (
	"bytes"
	"context"
	"io"

	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// ExportVerdict exports the verdict of paired runs: one job.verify span
// (job o.JobID) carrying the patch runs' events and, after them, the
// test.verdict event of paired (translate.AddVerdict). It returns that
// span. With FormatOTLPJSON and outFile set, the lines go to outFile once
// the whole export is encoded, written whole or not at all (WriteFile),
// instead of to o.Output.
func ExportVerdict(ctx context.Context, o Options, outFile string, patch []*testrun.Run, paired *testrun.Paired) (translate.Span, error) {
	var buf bytes.Buffer
	toFile := outFile != "" && (o.Format == FormatOTLPJSON || o.Format == FormatOTel)
	if toFile {
		o.Output = &buf
	}
	var span translate.Span
	_, err := ExportBuilt(ctx, o, func(topts []translate.Option) ([]translate.Span, error) {
		spans, err := translate.JobSpans(translate.Job{ID: o.JobID}, patch, topts...)
		if err != nil {
			return nil, err
		}
		if err := translate.AddVerdict(&spans[0], paired); err != nil {
			return nil, err
		}
		span = spans[0]
		return spans, nil
	})
	if err != nil || !toFile {
		return span, err
	}
	return span, WriteFile(outFile, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}
