package serve

import (
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sync"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// pageData is what the job page shows.
type pageData struct {
	Job      string
	Summary  Summary
	Runs     []pageRun
	Failures []testrun.Failure
	New      []testrun.Failure
	NewNote  string
	Coverage string
	Delta    string
}

// pageRun is one run of the job page: its summary, what ran, and the
// link to it.
type pageRun struct {
	RunSummary
	Commit, Command string
	Link            string
}

// pageFuncs are the functions the pages' templates call.
func pageFuncs() template.FuncMap {
	return template.FuncMap{
		"deref": func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		},
		"status": func(p *testrun.Status) string {
			if p == nil {
				return "unknown"
			}
			return string(*p)
		},
		"when": timeText,
	}
}

// templates are the pages' templates, one file each.
//
//go:embed templates/*.tmpl
var templates embed.FS

// parsePage parses the page template file name of templates, with
// pageFuncs.
func parsePage(name string) *template.Template {
	return template.Must(template.New(name).Funcs(pageFuncs()).ParseFS(templates, "templates/"+name))
}

// jobTemplate is parsed the first time a page is asked for, not at start-up.
var jobTemplate = sync.OnceValue(func() *template.Template { return parsePage("job.tmpl") })

func percent(p *float64) string {
	if p == nil {
		return "unknown"
	}
	return fmt.Sprintf("%.2f%%", *p*100)
}

// jobPage renders a job's summary as HTML.
func (s *Server) jobPage(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := checkID("job id", id, false); err != nil {
		return err
	}
	if r.URL.RawQuery != "" {
		return badRequest("the page takes no parameters")
	}
	ctx := r.Context()
	key, version, done, err := s.cachedScope(w, r, scopeJob, id)
	if done || err != nil {
		return err
	}
	runs, err := s.runs.JobRuns(ctx, id)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return notFound("no runs for this job id")
	}
	sum, err := s.summarize(ctx, runs)
	if err != nil {
		return err
	}
	return s.answerHTML(w, r, key, version, jobTemplate(), jobPageData(id, runs, sum))
}

// jobPageData is what the page of job id shows of its runs and their
// summary.
func jobPageData(id string, runs []store.StoredRun, sum summarized) pageData {
	d := pageData{Job: id, Summary: sum.Summary, Coverage: percent(sum.Summary.LineRate)}
	ran := make(map[string]*testrun.Run, len(runs))
	for _, sr := range runs {
		ran[sr.Run.ID] = sr.Run
	}
	for _, rs := range sum.Runs {
		pr := pageRun{RunSummary: rs, Link: jobPath("/api/jobs/", id, "/tests?"+url.Values{"run": {rs.ID}}.Encode())}
		if r := ran[rs.ID]; r != nil {
			pr.Commit, pr.Command = r.Commit, r.Command
		}
		d.Runs = append(d.Runs, pr)
	}
	if sum.latest != nil {
		d.Failures = sum.latest.Failures
	}
	switch c := sum.Summary.Comparison; {
	case c == nil && sum.base == nil:
		d.NewNote = "No base run in this job: new failures cannot be told."
	case c == nil:
		d.NewNote = "No counted run after the base."
	case !c.Available:
		d.NewNote = "Comparison unavailable: " + c.Unavailable
	default:
		d.New = c.NewFailures
		if len(d.New) == 0 {
			d.NewNote = "No new failures against the base."
		}
	}
	if sum.Summary.CoverageDelta != nil {
		d.Delta = fmt.Sprintf("%+.2f points", *sum.Summary.CoverageDelta*100)
	} else {
		d.Delta = "unknown"
	}
	return d
}
