package serve

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sync"

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

// jobTemplate is parsed the first time a page is asked for, not at start-up.
var jobTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("job").Funcs(pageFuncs()).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tests of job {{.Job}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem;color:#1b1b1b;line-height:1.4}
h1{font-size:1.5rem;word-break:break-all}h2{font-size:1.15rem;margin-top:1.8rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse}td,th{padding:.25rem .8rem;text-align:left;border-bottom:1px solid #eee;vertical-align:top}
.counts td{font-size:1.3rem;font-weight:600}.fail{color:#b00020}.pass{color:#1b6e20}
pre{white-space:pre-wrap;word-break:break-word;margin:0;font-size:.85rem;background:#f6f6f6;padding:.3rem}
code{word-break:break-all}.muted{color:#666}
</style>
</head>
<body>
<p><a href="/">All jobs</a></p>
<h1>Tests of job <code id="job">{{.Job}}</code></h1>
{{with .Summary.Run}}<p>Latest counted run: <code id="latest-run">{{.}}</code>{{with $.Summary.BaseRun}}, base run <code>{{.}}</code>{{end}}</p>
{{else}}<p id="no-counted" class="fail">No run of this job is counted (none trusted, complete and with tests).</p>{{end}}
{{with .Summary.Counts}}
<h2>Counts</h2>
<table class="counts" id="counts"><tr><th>total</th><th>passed</th><th>failed</th><th>errors</th><th>skipped</th><th>flaky</th></tr>
<tr><td id="count-total">{{.Total}}</td><td id="count-passed" class="pass">{{.Passed}}</td><td id="count-failed"{{if .Failed}} class="fail"{{end}}>{{.Failed}}</td><td id="count-errors"{{if .Errors}} class="fail"{{end}}>{{.Errors}}</td><td id="count-skipped">{{.Skipped}}</td><td id="count-flaky">{{.Flaky}}</td></tr></table>
{{end}}
<h2>Coverage</h2>
<p id="coverage">Line coverage: {{.Coverage}}; change against the base: {{.Delta}}</p>
<h2>New failures</h2>
{{if .NewNote}}<p id="new-note" class="muted">{{.NewNote}}</p>{{end}}
{{if .New}}<table id="new-failures"><tr><th>test</th><th>outcome</th><th>message</th></tr>
{{range .New}}<tr><td><code>{{.ID}}</code></td><td class="fail">{{.Outcome}}</td><td><pre>{{.Message}}</pre></td></tr>
{{end}}</table>{{end}}
<h2>Failures</h2>
{{if .Failures}}<table id="failures"><tr><th>test</th><th>outcome</th><th>message</th></tr>
{{range .Failures}}<tr><td><code class="failing-id">{{.ID}}</code>{{if .Flaky}} <span class="muted">(flaky)</span>{{end}}</td><td class="fail">{{.Outcome}}</td><td><pre>{{.Message}}</pre></td></tr>
{{end}}</table>{{else}}<p id="no-failures">No failures in the latest counted run.</p>{{end}}
<h2>Flaky tests</h2>
{{if .Summary.Flaky}}<ul id="flaky">{{range .Summary.Flaky}}<li><code>{{.}}</code></li>{{end}}</ul>{{else}}<p>None.</p>{{end}}
<h2>Runs</h2>
<table id="runs"><tr><th>run</th><th>kind</th><th>status</th><th>counted</th><th>total</th><th>failed</th><th>errors</th><th>commit</th><th>command</th><th>started</th><th>ended</th></tr>
{{range .Runs}}<tr><td><a class="run" href="{{.Link}}"><code>{{.ID}}</code></a></td><td>{{.Kind}}</td><td>{{status .Status}}</td><td>{{.Counted}}</td>{{with .Counts}}<td>{{.Total}}</td><td>{{.Failed}}</td><td>{{.Errors}}</td>{{else}}<td colspan="3" class="muted">no counts</td>{{end}}<td><code class="commit">{{.Commit}}</code></td><td><code class="command">{{.Command}}</code></td><td>{{when .StartedAt}}</td><td>{{when .EndedAt}}</td></tr>
{{end}}</table>
</body>
</html>
`))
})

func percent(p *float64) string {
	if p == nil {
		return "unknown"
	}
	return fmt.Sprintf("%.2f%%", *p*100)
}

// jobPage renders a job's summary as HTML.
func (s *Server) jobPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := checkID("job id", id, false); err != nil {
		writeProblem(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(r.URL.Query()) > 0 {
		writeProblem(w, http.StatusBadRequest, "the page takes no parameters")
		return
	}
	version, err := s.version(r.Context(), scopeJob, id)
	if err != nil {
		storeError(r.Context(), w, err)
		return
	}
	key := cacheKey(r)
	if b := s.cache.get(key, version); b != nil {
		b.serve(w, r)
		return
	}
	runs, err := s.runs.JobRuns(r.Context(), id)
	if err != nil {
		storeError(r.Context(), w, err)
		return
	}
	if len(runs) == 0 {
		writeProblem(w, http.StatusNotFound, "no runs for this job id")
		return
	}
	sum, err := s.summarize(r.Context(), runs)
	if err != nil {
		storeError(r.Context(), w, err)
		return
	}
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
	var buf bytes.Buffer
	if err := jobTemplate().Execute(&buf, d); err != nil {
		writeProblem(w, http.StatusInternalServerError, "the page could not be rendered")
		return
	}
	s.answerHTML(w, r, key, version, buf.Bytes())
}
