package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/teststore"
	"github.com/hangar-dev/testresults/testrun"
)

// A transaction PostgreSQL rolls back for a serialization failure is run
// again, and what it reports comes from the attempt that committed only:
// a trigger makes the server refuse the first write of a flaky entry with
// SQLSTATE 40001, after Record had noted the flip once. The trigger counts
// with a sequence, which a rollback does not undo.
func TestRecordRetriesASerializationFailure(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, teststore.PostgresLocation(t))
	require.NoError(t, err)
	defer s.Close()

	pass := run("run-pass", "tree-1", testrun.KindBase, map[string]testrun.Outcome{"pkg.TestA": testrun.OutcomePassed})
	_, err = s.Record(ctx, "repo", "ci", pass)
	require.NoError(t, err)

	db := s.(*sqlStore).db
	for _, stmt := range []string{
		`CREATE SEQUENCE refusals`,
		`CREATE FUNCTION refuse_once() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF nextval('refusals') = 1 THEN
				RAISE EXCEPTION 'could not serialize access' USING ERRCODE = '40001';
			END IF;
			RETURN NEW;
		END $$`,
		`CREATE TRIGGER refuse_once BEFORE INSERT ON flaky_entries FOR EACH ROW EXECUTE FUNCTION refuse_once()`,
	} {
		_, err := db.ExecContext(ctx, stmt)
		require.NoError(t, err, stmt)
	}

	fail := run("run-fail", "tree-1", testrun.KindBase, map[string]testrun.Outcome{"pkg.TestA": testrun.OutcomeFailed})
	rec, err := s.Record(ctx, "repo", "ci", fail)
	require.NoError(t, err, "a serialization failure is retried, not returned")
	assert.Equal(t, map[string][]testrun.FlakyHow{"pkg.TestA": {testrun.FlakySameTree}}, rec.Flaky,
		"the flip is reported once, from the attempt that committed")

	var attempts int64
	require.NoError(t, db.QueryRowContext(ctx, `SELECT last_value FROM refusals`).Scan(&attempts))
	assert.Equal(t, int64(2), attempts, "one refused attempt, one that committed")

	entries, err := s.Lookup(ctx, "repo", "ci", []string{"pkg.TestA"})
	require.NoError(t, err)
	require.Contains(t, entries, "pkg.TestA")
	assert.Equal(t, int64(1), entries["pkg.TestA"].Sightings)
}
