package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// ErrConfig is returned (wrapped) for a Config that cannot run.
var ErrConfig = errors.New("loadgen: invalid configuration")

// Limits of one run, so that no configuration sends without end.
const (
	MaxRate     = 100_000 // spans per second
	MaxDuration = 10 * time.Minute
)

// Config is one run of the load generator.
type Config struct {
	// Endpoint is the OTLP/gRPC receiver, host:port on a loopback address.
	Endpoint string
	// Rate is how many spans per second are sent, at most MaxRate.
	Rate int
	// Duration is how long spans are sent, at most MaxDuration.
	Duration time.Duration
	// Batch is how many spans go in one request (default 100).
	Batch int
	// Workers is how many requests may be under way at once (default 4).
	Workers int
	// Timeout bounds each request (default 10s). A request is never retried:
	// an error is counted as refused.
	Timeout time.Duration
	// First is the number of the first span sent (default 0): two runs
	// with disjoint ranges send different spans. Result.Accepted is
	// indexed from First.
	First uint64
	// Headers are sent with every request as gRPC metadata (an
	// authorization header for a receiver with an authenticator).
	Headers map[string]string
}

// Result counts what a run sent. Every request ends either accepted (the
// receiver answered OK and rejected no span) or refused (an error, or spans
// the receiver reported as rejected).
type Result struct {
	Requests, AcceptedRequests, RefusedRequests int
	SentSpans, AcceptedSpans, RefusedSpans      int
	// Accepted[seq] tells whether span seq was accepted; len(Accepted) is
	// SentSpans.
	Accepted []bool
	// Errors counts refusals by gRPC status code (or "partial" for spans the
	// receiver rejected in an OK answer).
	Errors map[string]int
	// FirstError is the message of the first refusal, if any.
	FirstError string
	// Elapsed is the time from the first request to the last answer.
	Elapsed time.Duration

	first uint64 // Config.First
}

func (c *Config) check() error {
	host, _, err := net.SplitHostPort(c.Endpoint)
	if err != nil {
		return fmt.Errorf("%w: endpoint %q: %w", ErrConfig, c.Endpoint, err)
	}
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%w: endpoint %q is not a loopback address", ErrConfig, c.Endpoint)
	}
	if c.Rate <= 0 || c.Rate > MaxRate {
		return fmt.Errorf("%w: rate %d: want 1..%d spans/s", ErrConfig, c.Rate, MaxRate)
	}
	if c.Duration <= 0 || c.Duration > MaxDuration {
		return fmt.Errorf("%w: duration %s: want more than 0, at most %s", ErrConfig, c.Duration, MaxDuration)
	}
	if c.Batch == 0 {
		c.Batch = 100
	}
	if c.Workers == 0 {
		c.Workers = 4
	}
	if c.Timeout == 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Batch < 0 || c.Workers < 0 || c.Timeout < 0 {
		return fmt.Errorf("%w: negative batch, workers or timeout", ErrConfig)
	}
	return nil
}

type request struct {
	first uint64
	n     int
}

// Send sends g's spans to cfg.Endpoint over OTLP/gRPC at cfg.Rate for
// cfg.Duration (fewer when the receiver is slower: requests are never
// queued beyond cfg.Workers), and counts what was accepted. It stops early
// when ctx ends.
func Send(ctx context.Context, g *Generator, cfg Config) (Result, error) {
	if err := cfg.check(); err != nil {
		return Result{}, err
	}
	conn, err := grpc.NewClient(cfg.Endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return Result{}, fmt.Errorf("loadgen: %w", err)
	}
	defer func() { _ = conn.Close() }()
	client := ptraceotlp.NewGRPCClient(conn)

	total := int(int64(cfg.Rate) * int64(cfg.Duration) / int64(time.Second))
	res := Result{Accepted: make([]bool, 0, total), Errors: map[string]int{}, first: cfg.First}
	var mu sync.Mutex
	jobs := make(chan request)
	var wg sync.WaitGroup
	var md []string
	for k, v := range cfg.Headers {
		md = append(md, k, v)
	}
	for range cfg.Workers {
		wg.Go(func() {
			for r := range jobs {
				td := g.Traces(r.first, r.n)
				rctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(ctx, md...), cfg.Timeout)
				resp, err := client.Export(rctx, ptraceotlp.NewExportRequestFromTraces(td))
				cancel()
				mu.Lock()
				res.record(r, resp, err)
				mu.Unlock()
			}
		})
	}

	start := time.Now()
	perRequest := time.Duration(float64(time.Second) * float64(cfg.Batch) / float64(cfg.Rate))
	seq := cfg.First
	for sent := 0; sent < total; {
		n := min(cfg.Batch, total-sent)
		next := start.Add(time.Duration(sent/cfg.Batch) * perRequest)
		if d := time.Until(next); d > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(d):
			}
		}
		if ctx.Err() != nil {
			break
		}
		mu.Lock()
		res.Accepted = append(res.Accepted, make([]bool, n)...)
		res.Requests++
		res.SentSpans += n
		mu.Unlock()
		select {
		case jobs <- request{first: seq, n: n}:
		case <-ctx.Done():
			mu.Lock()
			res.Accepted = res.Accepted[:len(res.Accepted)-n]
			res.Requests--
			res.SentSpans -= n
			mu.Unlock()
		}
		if ctx.Err() != nil {
			break
		}
		seq += uint64(n)
		sent += n
	}
	close(jobs)
	wg.Wait()
	res.Elapsed = time.Since(start)
	return res, ctx.Err()
}

func (res *Result) record(r request, resp ptraceotlp.ExportResponse, err error) {
	if err == nil && resp.PartialSuccess().RejectedSpans() > 0 {
		res.Errors["partial"]++
		if res.FirstError == "" {
			res.FirstError = fmt.Sprintf("%d spans rejected: %s", resp.PartialSuccess().RejectedSpans(), resp.PartialSuccess().ErrorMessage())
		}
		// The receiver does not say which spans it rejected: none of the
		// request counts as accepted.
		err = errors.New("partial")
	} else if err != nil {
		res.Errors[status.Code(err).String()]++
		if res.FirstError == "" {
			res.FirstError = err.Error()
		}
	}
	if err != nil {
		res.RefusedRequests++
		res.RefusedSpans += r.n
		return
	}
	res.AcceptedRequests++
	res.AcceptedSpans += r.n
	for i := range r.n {
		res.Accepted[int(r.first-res.first)+i] = true
	}
}

// Rate returns the spans per second actually sent.
func (res Result) Rate() float64 {
	if res.Elapsed <= 0 {
		return 0
	}
	return float64(res.SentSpans) / res.Elapsed.Seconds()
}
