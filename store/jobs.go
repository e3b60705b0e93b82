package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// MaxJobsPerPage bounds the jobs one Jobs call returns.
const MaxJobsPerPage = 200

// JobsQuery selects a page of jobs.
type JobsQuery struct {
	// Repo keeps the jobs whose latest run is of this repository ("":
	// every job).
	Repo string
	// Limit is the page's size (at most MaxJobsPerPage; 0 or less: that).
	Limit int
	// Before is the Cursor of the last job of the previous page: the page
	// holds the jobs listed after it (0: from the newest).
	Before int64
}

// JobEntry is a job and its latest run.
type JobEntry struct {
	JobID string
	// Latest is the run of the job's latest tagging, without its cases,
	// with the tags and time of that tagging and the run's repository.
	Latest StoredRun
	// Cursor orders the jobs, newest first: the sequence number of that
	// tagging, which no other tagging has.
	Cursor int64
}

// jobsQuery lists each job (a non-empty job id) by its latest tagging.
const jobsQuery = `SELECT t.job_id, r.repository, t.session_ref, t.turn, t.recorded_at, r.run_json,
	r.cases_json IS NOT NULL, j.seq
	FROM (SELECT job_id, MAX(seq) AS seq FROM run_tags WHERE job_id <> '' GROUP BY job_id) j
	JOIN run_tags t ON t.seq = j.seq
	JOIN runs r ON r.run_id = t.run_id`

func (s *sqlStore) Jobs(ctx context.Context, q JobsQuery) ([]JobEntry, int64, error) {
	limit := q.Limit
	if limit <= 0 || limit > MaxJobsPerPage {
		limit = MaxJobsPerPage
	}
	if q.Before < 0 {
		return nil, 0, errors.New("store: a jobs cursor is 0 or more")
	}
	query := jobsQuery + ` WHERE 1 = 1`
	var args []any
	if q.Before > 0 {
		query += ` AND j.seq < ?`
		args = append(args, q.Before)
	}
	if q.Repo != "" {
		query += ` AND r.repository = ?`
		args = append(args, q.Repo)
	}
	// One more than the page tells whether another follows.
	query += ` ORDER BY j.seq DESC LIMIT ` + strconv.Itoa(limit+1)
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, 0, s.fail("", err)
	}
	// Rows that were read to the end are closed already and rows.Err
	// reports what went wrong; on an early return the first error is the
	// one to report.
	defer func() { _ = rows.Close() }()
	out := []JobEntry{}
	for rows.Next() {
		var e JobEntry
		var turn *int64
		var recorded int64
		var runJSON string
		sr := &e.Latest
		if err := rows.Scan(&e.JobID, &sr.Repo, &sr.SessionRef, &turn, &recorded, &runJSON, &sr.HasCases, &e.Cursor); err != nil {
			return nil, 0, s.fail("", err)
		}
		sr.JobID = e.JobID
		if turn != nil && *turn >= 0 {
			n := int(*turn)
			sr.Turn = &n
		}
		sr.RecordedAt = time.UnixMicro(recorded).UTC()
		if sr.Run, err = s.parsed.read(runJSON); err != nil {
			return nil, 0, s.fail("", fmt.Errorf("job %q: %w", e.JobID, err))
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, s.fail("", err)
	}
	if len(out) > limit {
		return out[:limit], out[limit-1].Cursor, nil
	}
	return out, 0, nil
}

func (s *sqlStore) RunsVersion(ctx context.Context) (string, error) {
	return s.keptVersion(ctx, "runs", func() (string, error) { return s.readRunsVersion(ctx) })
}

func (s *sqlStore) readRunsVersion(ctx context.Context) (string, error) {
	st, err := s.prepare(ctx, `SELECT n FROM run_writes WHERE id = 1`)
	if err != nil {
		return "", s.fail("", err)
	}
	var n int64
	if err := st.QueryRowContext(ctx).Scan(&n); err != nil {
		return "", s.fail("", err)
	}
	return strconv.FormatInt(n, 10), nil
}
