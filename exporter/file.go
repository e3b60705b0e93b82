package exporter

import (
	"context"
	"fmt"
	"io"
	"sync"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// FileExporter writes OTLP/JSON: each WriteTraces call writes one
// ExportTraceServiceRequest JSON object on one line, and each WriteLogs
// call one ExportLogsServiceRequest, as the OTLP file format and the
// collector's file exporter write them (the collector's otlpjsonfile
// receiver reads both signals from one file). ptrace.JSONUnmarshaler and
// plog.JSONUnmarshaler read the lines back. It is safe for concurrent
// use; it does not close its writer.
type FileExporter struct {
	mu      sync.Mutex
	w       io.Writer
	stopped bool
}

// NewFileExporter returns an exporter writing to w.
func NewFileExporter(w io.Writer) *FileExporter {
	return &FileExporter{w: w}
}

// WriteTraces writes td as one line.
func (e *FileExporter) WriteTraces(td ptrace.Traces) error {
	var m ptrace.JSONMarshaler
	b, err := m.MarshalTraces(td)
	if err != nil {
		return fmt.Errorf("exporter: marshal OTLP/JSON: %w", err)
	}
	return e.writeLine(b)
}

// WriteLogs writes ld as one line.
func (e *FileExporter) WriteLogs(ld plog.Logs) error {
	var m plog.JSONMarshaler
	b, err := m.MarshalLogs(ld)
	if err != nil {
		return fmt.Errorf("exporter: marshal OTLP/JSON: %w", err)
	}
	return e.writeLine(b)
}

func (e *FileExporter) writeLine(b []byte) error {
	b = append(b, '\n')
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return ErrShutdown
	}
	if _, err := e.w.Write(b); err != nil {
		return fmt.Errorf("exporter: write OTLP/JSON: %w", err)
	}
	return nil
}

// ForceFlush flushes the writer when it buffers (has a Flush method).
func (e *FileExporter) ForceFlush(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("exporter: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.flush()
}

// Shutdown flushes the writer and stops the exporter: later exports fail
// with ErrShutdown. It does not close the writer.
func (e *FileExporter) Shutdown(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("exporter: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return nil
	}
	e.stopped = true
	return e.flush()
}

func (e *FileExporter) flush() error {
	if f, ok := e.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return fmt.Errorf("exporter: flush OTLP/JSON: %w", err)
		}
	}
	return nil
}
