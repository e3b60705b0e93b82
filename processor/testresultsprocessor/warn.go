package testresultsprocessor

import (
	"context"
	"fmt"
	"sync/atomic"

	"go.opentelemetry.io/collector/client"
	"go.uber.org/zap"
)

// clientWarnings tells the operator, once for each cause, that batches reach
// the processor without the client information that trusted_sources
// entries match on, so that these entries can never trust anything. The
// checks run only on batches that carry a listed span, and stop costing
// anything once every possible warning was given.
type clientWarnings struct {
	logger *zap.Logger

	// Paths of the entries that need metadata and auth, as in the
	// configuration (trusted_sources[1]); empty when none does.
	metadataEntries []string
	authEntries     []string
	clientEntries   []string // entries that need either
	key             string   // trusted_sources, or trusted_edges on a gateway

	noClient, noMetadata, noAuth atomic.Bool // warned already
}

func newClientWarnings(cfg *Config, logger *zap.Logger) *clientWarnings {
	w := &clientWarnings{logger: logger}
	if cfg.TrustAllSources {
		return w
	}
	key, entries := cfg.judged()
	w.key = key
	for i, ts := range entries {
		path := fmt.Sprintf("%s[%d]", key, i)
		if len(ts.Metadata) > 0 {
			w.metadataEntries = append(w.metadataEntries, path)
		}
		if len(ts.AuthSubjects) > 0 {
			w.authEntries = append(w.authEntries, path)
		}
		if len(ts.Metadata) > 0 || len(ts.AuthSubjects) > 0 {
			w.clientEntries = append(w.clientEntries, path)
		}
	}
	return w
}

// check looks at the client information of a batch. A batch without any
// (no address, no auth, no metadata) has lost it on its way, usually in a
// batch processor placed before this one. A batch with client information
// but no metadata came from a receiver without include_metadata; one without
// auth data, from a receiver without an authenticator.
func (w *clientWarnings) check(ctx context.Context) {
	if w.logger == nil || w.done() {
		return
	}
	info := client.FromContext(ctx)
	hasMetadata := false
	for range info.Metadata.Keys() {
		hasMetadata = true
		break
	}
	if info.Addr == nil && info.Auth == nil && !hasMetadata {
		if w.noClient.CompareAndSwap(false, true) {
			w.logger.Warn("A batch arrived without any client information (address, authentication, request metadata): "+
				"the "+w.key+" entries that match auth_subjects or metadata cannot match it, and its runs come out untrusted. "+
				"Place the testresults processor before the batch processor in the pipeline.",
				zap.Strings(w.key, w.clientEntries))
		}
		return
	}
	if len(w.metadataEntries) > 0 && !hasMetadata && w.noMetadata.CompareAndSwap(false, true) {
		w.logger.Warn("A batch arrived without request metadata: the "+w.key+" entries that match metadata cannot match it, "+
			"and its runs come out untrusted. Set include_metadata: true on the receiver.",
			zap.Strings(w.key, w.metadataEntries))
	}
	if len(w.authEntries) > 0 && info.Auth == nil && w.noAuth.CompareAndSwap(false, true) {
		w.logger.Warn("A batch arrived without authentication data: the "+w.key+" entries that match auth_subjects cannot match it, "+
			"and its runs come out untrusted. Configure an authenticator (auth:) on the receiver.",
			zap.Strings(w.key, w.authEntries))
	}
}

// done reports whether no warning is left to give.
func (w *clientWarnings) done() bool {
	return len(w.clientEntries) == 0 ||
		(w.noClient.Load() && (len(w.metadataEntries) == 0 || w.noMetadata.Load()) && (len(w.authEntries) == 0 || w.noAuth.Load()))
}
