package testresultsreceiver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"

	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// Sources of a run, as the metrics' source attribute names them.
const (
	sourceWatch = "watch"
	sourceHTTP  = "http"
)

// testresultsReceiver is one receiver instance, shared by the traces and
// logs pipelines it is in.
type testresultsReceiver struct {
	cfg     *Config
	set     receiver.Settings
	tel     *telemetry
	emitter *emitter
	senders *senders

	// nextTraces and nextLogs are set by the factory before Start.
	nextTraces consumer.Traces
	nextLogs   consumer.Logs

	obsWatch, obsHTTP *receiverhelper.ObsReport

	checkpoints checkpoints
	watcher     *watcher
	server      *uploadServer

	// mu serialises deliveries: a poll and uploads never interleave their
	// consumer calls and checkpoints.
	mu        sync.Mutex
	cancel    context.CancelFunc
	done      chan struct{}
	startOnce sync.Once
	startErr  error
	stopOnce  sync.Once
	// forget removes the instance from the factory's, once shut down.
	forget func()
	// manualPoll leaves the polls to the caller of pollOnce (tests).
	manualPoll bool
	// delivering is the group being delivered by the poll; tracesDone
	// holds the groups whose spans were accepted and whose log records
	// were not (see deliver), and pinned, by folder, the files of such a
	// group: until its log records are accepted, the folder's run is that
	// group's, whatever lands beside it meanwhile. All are guarded by mu.
	delivering string
	tracesDone map[string]bool
	pinned     map[string][]string
}

func newReceiver(cfg *Config, set receiver.Settings) (*testresultsReceiver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	events, err := translate.ParseEvents(cfg.Events)
	if err != nil {
		return nil, err
	}
	snd, err := newSenders(cfg)
	if err != nil {
		return nil, err
	}
	tel, err := newTelemetry(set.TelemetrySettings, set.ID)
	if err != nil {
		return nil, err
	}
	r := &testresultsReceiver{
		tracesDone: map[string]bool{},
		pinned:     map[string][]string{},
		cfg:        cfg,
		set:        set,
		tel:        tel,
		senders:    snd,
		emitter:    &emitter{events: events, redactor: testrun.DefaultRedactor(), workDir: cfg.WorkDir},
	}
	if r.obsWatch, err = receiverhelper.NewObsReport(receiverhelper.ObsReportSettings{ReceiverID: set.ID, Transport: "file", ReceiverCreateSettings: set}); err != nil {
		return nil, err
	}
	if r.obsHTTP, err = receiverhelper.NewObsReport(receiverhelper.ObsReportSettings{ReceiverID: set.ID, Transport: "http", ReceiverCreateSettings: set}); err != nil {
		return nil, err
	}
	return r, nil
}

// Start opens the checkpoints, starts the poller and the upload server,
// once for the pipelines the receiver is in.
func (r *testresultsReceiver) Start(ctx context.Context, host component.Host) error {
	r.startOnce.Do(func() { r.startErr = r.start(ctx, host) })
	return r.startErr
}

func (r *testresultsReceiver) start(ctx context.Context, host component.Host) error {
	if r.nextTraces == nil {
		r.nextTraces = nopConsumer{}
		r.set.Logger.Warn("the receiver is in no traces pipeline: the spans that carry the runs go nowhere")
	}
	if r.emitter.events.Logs() && r.nextLogs == nil {
		r.set.Logger.Warn("events is " + r.cfg.Events + " but the receiver is in no logs pipeline: the log records go nowhere")
	}
	if r.nextLogs == nil {
		r.nextLogs = nopConsumer{}
	}
	cp, err := openCheckpoints(ctx, host, r.cfg.Storage, r.set.ID)
	if err != nil {
		return fmt.Errorf("testresultsreceiver: %w", err)
	}
	r.checkpoints = cp
	if r.cfg.Storage == nil && r.cfg.Watch.HasValue() {
		r.set.Logger.Warn("no storage extension: checkpoints are kept in memory, so a restart delivers again every run still in the watched folders; set storage (file_storage) to deliver each once")
	}
	runCtx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.done = make(chan struct{})
	if w := r.cfg.Watch.Get(); w != nil {
		r.watcher, err = newWatcher(w, func(path string, err error) {
			r.set.Logger.Warn("cannot list a watched path", zap.String("path", path), zap.Error(err))
		})
		if err != nil {
			cancel()
			close(r.done)
			return fmt.Errorf("testresultsreceiver: %w", err)
		}
		if r.manualPoll {
			close(r.done)
		} else {
			go r.pollLoop(runCtx, w.PollInterval)
		}
	} else {
		close(r.done)
	}
	if h := r.cfg.HTTP.Get(); h != nil {
		r.server, err = startUploadServer(ctx, h, r, host)
		if err != nil {
			cancel()
			<-r.done
			return fmt.Errorf("testresultsreceiver: http: %w", err)
		}
	}
	return nil
}

// Shutdown stops the poller and the server and closes the checkpoints.
func (r *testresultsReceiver) Shutdown(ctx context.Context) error {
	var errs []error
	r.stopOnce.Do(func() {
		if r.cancel != nil {
			r.cancel()
			<-r.done
		}
		if r.server != nil {
			errs = append(errs, r.server.shutdown(ctx))
		}
		if r.checkpoints != nil {
			errs = append(errs, r.checkpoints.close(ctx))
		}
		r.tel.shutdown()
		if r.forget != nil {
			r.forget()
		}
	})
	return errors.Join(errs...)
}

func (r *testresultsReceiver) pollLoop(ctx context.Context, interval time.Duration) {
	defer close(r.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		r.pollOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// pollOnce lists the watched files and delivers every group that settled.
func (r *testresultsReceiver) pollOnce(ctx context.Context) {
	byDir := r.watcher.scan()
	for _, g := range r.watcher.groups(byDir) {
		if ctx.Err() != nil {
			return
		}
		r.deliverGroup(ctx, g)
	}
}

// deliverGroup delivers the run of one group once: files already
// checkpointed are left out; a run whose files changed while they were
// read waits for the next poll; a consumer's refusal is tried again at the
// next poll.
func (r *testresultsReceiver) deliverGroup(ctx context.Context, g group) {
	paths := g.files
	if g.results != "" {
		paths = []string{g.results}
	}
	keys := make(map[string]string, len(paths))
	var pending []string
	for _, p := range paths {
		d, err := r.watcher.digest(p)
		if err != nil {
			r.watcher.changed(p)
			r.set.Logger.Warn("cannot read a watched file", zap.String("path", p), zap.Error(err))
			return
		}
		key := checkpointKey(p, d)
		done, err := r.checkpoints.delivered(ctx, key)
		if err != nil {
			r.set.Logger.Error("cannot read the checkpoints; the run waits for the next poll", zap.Error(err))
			return
		}
		if done {
			r.watcher.markDelivered([]string{p})
			continue
		}
		keys[p] = key
		pending = append(pending, p)
	}
	if len(pending) == 0 {
		return
	}
	pending = r.pinnedGroup(g.dir, pending, keys)
	snd := r.senders.forFolder(g.dir)
	var (
		run *testrun.Run
		err error
	)
	if g.results != "" {
		var digest string
		run, digest, err = readResultsFile(g.results)
		if digest != "" && checkpointKey(g.results, digest) != keys[g.results] {
			r.watcher.changed(g.results)
			return
		}
	} else {
		first, last := r.watcher.times(pending)
		run, err = r.emitter.readFiles(pending, first, last)
	}
	if run != nil && changedWhileRead(run, keys, r.watcher) {
		return
	}
	if r.watcher.movedSinceScan(pending) {
		return
	}
	mark := func() {
		ks := make([]string, 0, len(pending))
		for _, p := range pending {
			ks = append(ks, keys[p])
		}
		// Delivered for this process whatever the storage says: a failed
		// write must not make every poll deliver the run again.
		r.watcher.markDelivered(pending)
		if err := r.checkpoints.mark(ctx, ks); err != nil {
			r.set.Logger.Error("the run was delivered but its checkpoint could not be written: a restart delivers it again", zap.String("folder", g.dir), zap.Error(err))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.refused(run, err, sourceWatch, g.dir)
		mark()
		return
	}
	snd.apply(run)
	r.delivering = groupKey(pending, keys)
	_ = r.deliver(ctx, run, snd, g.dir, sourceWatch, mark)
	if r.tracesDone[r.delivering] {
		r.pinned[g.dir] = slices.Clone(pending)
	} else {
		delete(r.pinned, g.dir)
	}
	r.delivering = ""
}

// pinnedGroup is the part of pending that is the folder's pinned group,
// when its spans went out and its log records did not (the retry must be
// of the same run, or its spans would go out again inside another); the
// pin is dropped, and pending returned whole, when a pinned file is no
// longer pending as it was (it changed: its content is a new run).
func (r *testresultsReceiver) pinnedGroup(dir string, pending []string, keys map[string]string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	pin, ok := r.pinned[dir]
	if !ok {
		return pending
	}
	for _, p := range pin {
		if !slices.Contains(pending, p) {
			delete(r.pinned, dir)
			return pending
		}
	}
	if !r.tracesDone[groupKey(pin, keys)] {
		delete(r.pinned, dir)
		return pending
	}
	return pin
}

// groupKey names a group's delivery: its checkpoint keys, in order.
func groupKey(pending []string, keys map[string]string) string {
	var b strings.Builder
	for _, p := range pending {
		b.WriteString(keys[p])
		b.WriteByte('\n')
	}
	return b.String()
}

// changedWhileRead reports whether a report's digest differs from the one
// the checkpoint is keyed by (the file changed between the two reads); the
// file then settles again.
func changedWhileRead(run *testrun.Run, keys map[string]string, w *watcher) bool {
	changed := false
	for _, info := range run.Reports {
		key, ok := keys[info.Path]
		if !ok || info.SHA256 == "" {
			continue
		}
		if key != checkpointKey(info.Path, info.SHA256) {
			w.changed(info.Path)
			changed = true
		}
	}
	return changed
}

// readResultsFile reads a run folder's TEST-RESULTS.json with the strict
// reader of package testrun (no unknown or repeated key, no contradiction,
// no forged flag), as testresults export reads it, and returns the SHA-256
// of the bytes it read, so that the checkpoint names what was delivered.
func readResultsFile(path string) (*testrun.Run, string, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, testrun.MaxJSONBytes+1))
	if err != nil {
		return nil, "", err
	}
	if len(b) > testrun.MaxJSONBytes {
		// Refused whatever its content: no digest, so that it is not
		// taken for a file that changed while it was read (and read
		// again at every poll, never delivered nor refused).
		return nil, "", fmt.Errorf("%s: over %d bytes, the most a run's JSON may hold", path, testrun.MaxJSONBytes)
	}
	sum := sha256.Sum256(b)
	digest := hex.EncodeToString(sum[:])
	tr, err := testrun.ReadTestResults(bytes.NewReader(b))
	if err != nil {
		return nil, digest, fmt.Errorf("%s: %w", path, err)
	}
	if tr.Run == nil || tr.Run.ID == "" {
		return nil, digest, fmt.Errorf("%s: %w", path, errNoID)
	}
	return tr.Run, digest, nil
}

// refused logs and counts a run that is not delivered: every report of it
// refused, a run file that could not be read, or an upload refused.
func (r *testresultsReceiver) refused(run *testrun.Run, err error, source, where string) {
	ctx := context.Background()
	fields := []zap.Field{zap.String("source", source), zap.String("where", where), zap.Error(err)}
	refusedReports := int64(0)
	if run != nil {
		for _, info := range run.Reports {
			if info.Error != "" && !info.Skipped {
				refusedReports++
				r.set.Logger.Warn("report refused", zap.String("source", source), zap.String("path", info.Path), zap.String("reason", info.Error))
			}
		}
	}
	r.tel.add(ctx, r.tel.b.ReceiverTestresultsReportsRefused, refusedReports, source)
	r.tel.add(ctx, r.tel.b.ReceiverTestresultsRunsRefused, 1, source)
	r.set.Logger.Warn("run not delivered", fields...)
}

// deliver emits run and hands it to the next consumers; accepted is called
// as soon as they accepted it, before anything else (the checkpoint: the
// shorter the time between the two, the smaller the window in which a crash
// delivers a run again). Reports refused within a run that was delivered
// (others were read) are counted and logged too: the run says it is
// incomplete, and why.
func (r *testresultsReceiver) deliver(ctx context.Context, run *testrun.Run, snd Sender, dir, source string, accepted func()) error {
	out, err := r.emitter.emit(run, snd, dir)
	if err != nil {
		r.refused(run, err, source, dir)
		return err
	}
	obs := r.obsWatch
	if source == sourceHTTP {
		obs = r.obsHTTP
	}
	// A watched run whose spans the traces pipeline accepted and whose log
	// records the logs pipeline refused is tried again with its log records
	// alone, so that its spans are not delivered twice.
	key := r.delivering
	octx := obs.StartTracesOp(ctx)
	if key == "" || !r.tracesDone[key] {
		err = r.nextTraces.ConsumeTraces(ctx, out.traces)
	}
	if err == nil && key != "" && out.records > 0 {
		r.tracesDone[key] = true
	}
	var lctx context.Context
	if err == nil && out.records > 0 {
		lctx = obs.StartLogsOp(ctx)
		err = r.nextLogs.ConsumeLogs(ctx, out.logs)
	}
	if err == nil {
		delete(r.tracesDone, key)
		if accepted != nil {
			accepted()
		}
	}
	obs.EndTracesOp(octx, "testresults", out.spans, err)
	if lctx != nil {
		obs.EndLogsOp(lctx, "testresults", out.records, err)
	}
	if err != nil {
		r.tel.add(ctx, r.tel.b.ReceiverTestresultsDeliveriesFailed, 1, source)
		r.set.Logger.Warn("the next consumer refused a run; it is tried again", zap.String("source", source), zap.String("run", run.ID), zap.Error(err))
		return err
	}
	var read, refused int64
	for _, info := range run.Reports {
		switch {
		case info.Skipped:
		case info.Error != "":
			refused++
			r.set.Logger.Warn("report refused", zap.String("source", source), zap.String("path", info.Path), zap.String("reason", info.Error), zap.String("run", run.ID))
		default:
			read++
		}
	}
	r.tel.add(ctx, r.tel.b.ReceiverTestresultsReportsRead, read, source)
	r.tel.add(ctx, r.tel.b.ReceiverTestresultsReportsRefused, refused, source)
	r.tel.add(ctx, r.tel.b.ReceiverTestresultsRunsDelivered, 1, source)
	r.set.Logger.Info("run delivered", zap.String("source", source), zap.String("run", run.ID), zap.String("where", dir), zap.Int("spans", out.spans), zap.Int("log_records", out.records))
	return nil
}

// nopConsumer stands for a pipeline the receiver is not in.
type nopConsumer struct{}

func (nopConsumer) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (nopConsumer) ConsumeTraces(context.Context, ptrace.Traces) error { return nil }

func (nopConsumer) ConsumeLogs(context.Context, plog.Logs) error { return nil }
