package testresultsreceiver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/extension/extensiontest"
)

// fileStorage starts a file_storage extension keeping its files in dir and
// returns a host holding it, and its id.
func fileStorage(t *testing.T, dir string) (component.Host, component.ID) {
	t.Helper()
	f := filestorage.NewFactory()
	cfg := f.CreateDefaultConfig().(*filestorage.Config)
	cfg.Directory = dir
	cfg.Compaction.Directory = dir
	id := component.NewID(f.Type())
	ext, err := f.Create(context.Background(), extensiontest.NewNopSettings(f.Type()), cfg)
	require.NoError(t, err)
	require.NoError(t, ext.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, ext.Shutdown(context.Background())) })
	return testHost{Host: componenttest.NewNopHost(), ext: map[component.ID]component.Component{id: ext}}, id
}

// TestCheckpointsSurviveRestart: with a storage extension, a receiver
// started again on the same folder delivers nothing it delivered before,
// and a file rewritten with other content is a new run.
func TestCheckpointsSurviveRestart(t *testing.T) {
	root := t.TempDir()
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(root, "a"))
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit1.xml"), filepath.Join(root, "b"))
	host, id := fileStorage(t, t.TempDir())
	cfg := watchConfig(root)
	cfg.Storage = &id

	first := startHarness(t, cfg, host)
	first.settle()
	require.Len(t, first.runIDs(), 2)
	require.NoError(t, first.r.Shutdown(context.Background()))

	cfg2 := watchConfig(root)
	cfg2.Storage = &id
	second := startHarness(t, cfg2, host)
	second.settle()
	assert.Empty(t, second.runIDs(), "delivered before the restart")

	path := filepath.Join(root, "b", "pytest-xunit1.xml")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
	second.settle()
	assert.Len(t, second.runIDs(), 1, "a rewritten file is a new run")
}

// TestWithoutStorageRestartDeliversAgain: without a storage extension the
// checkpoints live as long as the receiver, which says so at start.
func TestWithoutStorageRestartDeliversAgain(t *testing.T) {
	root := t.TempDir()
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(root, "a"))
	first := startHarness(t, watchConfig(root), nopHost())
	first.settle()
	require.Len(t, first.runIDs(), 1)
	assert.Equal(t, 1, first.log.FilterMessageSnippet("no storage extension").Len())
	require.NoError(t, first.r.Shutdown(context.Background()))
	second := startHarness(t, watchConfig(root), nopHost())
	second.settle()
	assert.Len(t, second.runIDs(), 1)
}

// TestConsumerRefusalRetried: a run the next consumer refuses is not
// checkpointed and is delivered at a later poll.
func TestConsumerRefusalRetried(t *testing.T) {
	root := t.TempDir()
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(root, "a"))
	h := startHarness(t, watchConfig(root), nopHost())
	sink := h.traces
	h.r.nextTraces = refusing{}
	h.settle()
	assert.Equal(t, 1, h.log.FilterMessageSnippet("refused a run").Len())
	h.r.nextTraces = sink
	h.poll(1)
	assert.Len(t, h.runIDs(), 1)
}

// failingCheckpoints read as empty and fail every write.
type failingCheckpoints struct{ memoryCheckpoints }

func (*failingCheckpoints) mark(context.Context, []string) error {
	return errors.New("storage full")
}

// TestCheckpointWriteFailureDeliversOnce: when the checkpoint cannot be
// written, the run is still delivered once by this process (a restart
// would deliver it again, as the log says), not at every poll.
func TestCheckpointWriteFailureDeliversOnce(t *testing.T) {
	root := t.TempDir()
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(root, "a"))
	h := startHarness(t, watchConfig(root), nopHost())
	h.r.checkpoints = &failingCheckpoints{}
	h.settle()
	h.poll(3)
	assert.Len(t, h.runIDs(), 1)
	assert.Equal(t, 1, h.log.FilterMessageSnippet("checkpoint could not be written").Len())
}
