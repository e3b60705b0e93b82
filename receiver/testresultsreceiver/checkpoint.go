package testresultsreceiver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension/xextension/storage"
)

// checkpoints remember which files were delivered. A key names one file
// by its path and the SHA-256 of its whole content (not a prefix
// fingerprint: JUnit files of one runner share long preambles), so a file
// rewritten with other content is new, and one rewritten with the same
// content is not.
type checkpoints interface {
	// delivered reports whether key was marked.
	delivered(ctx context.Context, key string) (bool, error)
	// mark records keys as delivered, all in one write.
	mark(ctx context.Context, keys []string) error
	close(ctx context.Context) error
}

// checkpointKey is the key of the file at path whose content has the
// SHA-256 digest (hex).
func checkpointKey(path, digest string) string {
	return "file/" + digest + "/" + path
}

// storageCheckpoints keep the checkpoints in a storage extension
// (file_storage), so that they survive a restart, a crash included.
type storageCheckpoints struct {
	client storage.Client
}

func (s *storageCheckpoints) delivered(ctx context.Context, key string) (bool, error) {
	v, err := s.client.Get(ctx, key)
	if err != nil {
		return false, fmt.Errorf("checkpoint %s: %w", key, err)
	}
	return v != nil, nil
}

func (s *storageCheckpoints) mark(ctx context.Context, keys []string) error {
	value := []byte(time.Now().UTC().Format(time.RFC3339Nano))
	ops := make([]*storage.Operation, len(keys))
	for i, k := range keys {
		ops[i] = storage.SetOperation(k, value)
	}
	if err := s.client.Batch(ctx, ops...); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

func (s *storageCheckpoints) close(ctx context.Context) error { return s.client.Close(ctx) }

// memoryCheckpoints keep the checkpoints for the life of the process: the
// receiver without a storage extension.
type memoryCheckpoints struct {
	mu   sync.Mutex
	keys map[string]bool
}

func (m *memoryCheckpoints) delivered(_ context.Context, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.keys[key], nil
}

func (m *memoryCheckpoints) mark(_ context.Context, keys []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keys == nil {
		m.keys = map[string]bool{}
	}
	for _, k := range keys {
		m.keys[k] = true
	}
	return nil
}

func (m *memoryCheckpoints) close(context.Context) error { return nil }

// openCheckpoints opens the checkpoints in the storage extension id, or in
// memory when id is nil.
func openCheckpoints(ctx context.Context, host component.Host, id *component.ID, self component.ID) (checkpoints, error) {
	if id == nil {
		return &memoryCheckpoints{}, nil
	}
	ext, ok := host.GetExtensions()[*id]
	if !ok {
		return nil, fmt.Errorf("storage: extension %s is not configured", id)
	}
	se, ok := ext.(storage.Extension)
	if !ok {
		return nil, fmt.Errorf("storage: extension %s is not a storage extension", id)
	}
	client, err := se.GetClient(ctx, component.KindReceiver, self, "")
	if err != nil {
		return nil, fmt.Errorf("storage: %s: %w", id, err)
	}
	return &storageCheckpoints{client: client}, nil
}
