package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

// Excused answers, for each test id, whether the flaky list of repo and
// env excused it for a job that started at jobStart
// (testrun.FlakyEntry.Excused: only entries on the list before the job
// started count). Every id is a key of the result.
//
// On the SQL stores it asks one query, whatever the number of ids, that
// returns only the entries that can excuse, and decides most of them from
// their first and last sighting alone: an entry last seen before the job
// started excuses exactly when that sighting is less than
// testrun.FlakyTTL old (the last sighting is always among those kept). Only
// an entry seen again since the job started (by the job's own runs, or
// another job's) has its kept sightings read, and only their times, to
// find one from before the job.
func Excused(ctx context.Context, s Store, repo, env string, ids []string, jobStart time.Time) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = false
	}
	if ss, ok := s.(*sqlStore); ok {
		if err := ss.excused(ctx, repo, env, ids, jobStart, out); err != nil {
			return nil, ss.fail("", err)
		}
		return out, nil
	}
	entries, err := s.Lookup(ctx, repo, env, ids)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		e, ok := entries[id]
		out[id] = ok && e.Excused(jobStart)
	}
	return out, nil
}

// excusedWindow is testrun.FlakyEntry.Excused in the store's terms: the
// columns keep first_seen and last_seen in whole microseconds
// (time.UnixMicro, rounded down), the kept sightings (seen) at full
// precision. A sighting counts when it lies in [from, jobStart).
type excusedWindow struct {
	jobStart, from int64 // nanoseconds since the epoch
}

func newExcusedWindow(jobStart time.Time) excusedWindow {
	j := jobStart.UnixNano()
	return excusedWindow{jobStart: j, from: j - int64(testrun.FlakyTTL)}
}

// ceilDiv is a/b rounded up, for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}

// bounds are the microsecond values the query compares with:
//   - firstBefore: first_seen < firstBefore exactly when the entry's first
//     sighting, as the column keeps it, is before the job started;
//   - lastFrom: an entry with last_seen < lastFrom was last seen before
//     from (its last sighting lies in [last_seen, last_seen+1µs)), so it
//     excuses nothing;
//   - clearBefore, clearFrom: an entry with clearFrom <= last_seen <
//     clearBefore was last seen in [from, jobStart), whatever the
//     nanoseconds the column dropped; it excuses, and its sightings need
//     not be read. Every other candidate's sightings are read.
func (w excusedWindow) bounds() (firstBefore, lastFrom, clearFrom, clearBefore int64) {
	const us = int64(time.Microsecond)
	firstBefore = ceilDiv(w.jobStart, us)
	lastFrom = ceilDiv(w.from-(us-1), us)
	clearFrom = ceilDiv(w.from, us)
	clearBefore = ceilDiv(w.jobStart-(us-1), us)
	return
}

// sightingTimes is the part of a kept sighting that Excused reads.
type sightingTimes []struct {
	At time.Time `json:"at"`
}

func (s *sqlStore) excused(ctx context.Context, repo, env string, ids []string, jobStart time.Time, out map[string]bool) error {
	if len(ids) == 0 {
		return nil
	}
	w := newExcusedWindow(jobStart)
	firstBefore, lastFrom, clearFrom, clearBefore := w.bounds()
	in, list, err := s.idsParam(ids)
	if err != nil {
		return err
	}
	// seen is NULL for the entries whose last sighting decides. It is read
	// by key only for the others, so that the scan itself needs only the
	// columns of flaky_entries_excused (an index-only scan on PostgreSQL).
	query := s.q(`SELECT test_id,
			CASE WHEN last_seen >= ? AND last_seen < ? THEN NULL ELSE
				(SELECT k.seen FROM flaky_entries k WHERE k.repository = f.repository
					AND k.environment = f.environment AND k.test_id = f.test_id) END
		FROM flaky_entries f
		WHERE repository = ? AND environment = ? AND first_seen < ? AND last_seen >= ?
			AND test_id ` + in)
	if s.d.name == "postgres" {
		// The ids as one array literal in the text format: pgx sends a
		// string as it is, where a []string costs an allocation per id.
		args := []any{clearFrom, clearBefore, repo, env, firstBefore, lastFrom, textArray(ids)}
		return s.excusedPgx(ctx, query, args, ids, w, out)
	}
	st, err := s.prepare(ctx, query)
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx, clearFrom, clearBefore, repo, env, firstBefore, lastFrom, list)
	if err != nil {
		return err
	}
	err = scanExcused(rows, w, out)
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// excusedPgx asks the query on one of the pool's connections through
// pgx itself rather than database/sql, reading each row's bytes in place
// (pgx.Rows.RawValues): a text column is the same bytes in the text and
// the binary format, so the answer does not depend on the connection's
// query exec mode. pgx prepares and keeps the statement on the connection
// in its default mode, and prepares nothing under exec or simple_protocol
// (see postgresConnector). The ids a row names are found in the
// ids without copying the row's bytes into a string.
func (s *sqlStore) excusedPgx(ctx context.Context, query string, args []any, ids []string, w excusedWindow, out map[string]bool) error {
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	err = c.Raw(func(dc any) error {
		pc := pgxConn(dc)
		if pc == nil {
			return errors.New("the pgx driver gave an unexpected connection type")
		}
		rows, err := pc.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			v := rows.RawValues()
			if len(v) != 2 {
				return fmt.Errorf("%d columns, want 2", len(v))
			}
			i, ok := at[string(v[0])]
			if !ok {
				return fmt.Errorf("entry %q was not asked for", v[0])
			}
			if err := decideExcused(ids[i], v[1], w, out); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}

// idsParam is ids as one parameter (a text[] for PostgreSQL, a JSON array
// that SQLite's json_each reads) and the condition that reads it (after
// "test_id "), so that one statement, prepared once, answers any number
// of them in one query.
func (s *sqlStore) idsParam(ids []string) (in string, list any, err error) {
	if s.d.name == "postgres" {
		return `= ANY(?)`, ids, nil
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return "", nil, err
	}
	return `IN (SELECT value FROM json_each(?))`, string(b), nil
}

func scanExcused(rows *sql.Rows, w excusedWindow, out map[string]bool) error {
	var id string
	var seen sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&id, &seen); err != nil {
			return err
		}
		if err := decideExcused(id, seen, w, out); err != nil {
			return err
		}
	}
	return rows.Err()
}

// decideExcused sets out[id] for an entry the query returned: excused when
// its last sighting decided (seen is nil), else when one of its kept
// sightings lies in the window.
func decideExcused(id string, seen []byte, w excusedWindow, out map[string]bool) error {
	if seen == nil {
		out[id] = true
		return nil
	}
	var times sightingTimes
	if err := json.Unmarshal(seen, &times); err != nil {
		return fmt.Errorf("entry %q: sightings: %w", id, err)
	}
	for _, t := range times {
		if at := t.At.UnixNano(); at >= w.from && at < w.jobStart {
			out[id] = true
			break
		}
	}
	return nil
}

// textArray is ids as a PostgreSQL array literal of quoted elements, in
// which only a double quote and a backslash are escaped.
func textArray(ids []string) string {
	n := 2
	for _, id := range ids {
		n += len(id) + 3
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte('{')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for j := 0; j < len(id); j++ {
			if c := id[j]; c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(id[j])
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}
