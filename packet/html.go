package packet

import (
	"html/template"
	"io"
	"sync"
)

// page is parsed the first time a packet is rendered as HTML, not at
// start-up.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("packet").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Test results: {{.V.AfterID}}</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 60em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #999; padding: 0.2em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
pre { background: #f4f4f4; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }
.alert { font-weight: bold; }
</style>
</head>
<body>
<h1>Test results: {{.V.AfterID}}</h1>
<p{{if .Alert}} class="alert"{{end}}>{{.Headline}}</p>
<table>
<tr><th>run</th><th>total</th><th>passed</th><th>failed</th><th>errors</th><th>skipped</th><th>flaky</th></tr>
{{with .V.Counts}}<tr><td>after</td><td>{{.Total}}</td><td>{{.Passed}}</td><td>{{.Failed}}</td><td>{{.Errors}}</td><td>{{.Skipped}}</td><td>{{.Flaky}}</td></tr>
{{else}}<tr><td>after</td><td>unknown</td><td>unknown</td><td>unknown</td><td>unknown</td><td>unknown</td><td>unknown</td></tr>
{{end}}</table>
<p>Run {{.V.AfterID}}: {{.RunState}}.</p>
{{if .V.Incomplete.Total}}<p>Incomplete because:</p>
<ul>
{{range .V.Incomplete.Items}}<li>{{.}}</li>
{{end}}</ul>
{{if .V.Incomplete.Left}}<p>…and {{.V.Incomplete.Left}} more not shown.</p>
{{end}}{{end}}{{if .V.NotRun.Total}}<h2>Expected tests that never ran ({{.V.NotRun.Total}})</h2>
<ul>
{{range .V.NotRun.Items}}<li>{{.}}</li>
{{end}}</ul>
{{if .V.NotRun.Left}}<p>…and {{.V.NotRun.Left}} more not shown.</p>
{{end}}{{end}}{{if .V.HasBase}}<p>Base {{.V.BaseID}}: its own failures: {{.BaseFailures}}.</p>
{{end}}<p>Line coverage: {{.V.Coverage}}{{if .V.HasBase}}, change against the base: {{.V.Delta}}{{end}}.</p>
{{if .V.CoverageReason}}<p>Coverage unknown because: {{.V.CoverageReason}}</p>
{{end}}{{if and .V.HasBase .V.Available .V.NewFailures.Total}}<h2>New failures ({{.V.NewFailures.Total}})</h2>
{{range .V.NewFailures.Items}}<h3><b>{{.Outcome}}</b>: {{.ID}}</h3>
{{if .Rerun}}<p>Rerun: <code>{{.Rerun}}</code></p>
{{end}}{{if .Score}}<p>Flakiness score: {{.Score}}</p>
{{end}}{{if .Message}}<pre>{{.Message}}</pre>
{{end}}{{end}}{{if .V.NewFailures.Left}}<p>…and {{.V.NewFailures.Left}} more not shown.</p>
{{end}}{{end}}{{if and (not .V.HasBase) .V.Failures.Total}}<h2>Failures ({{.V.Failures.Total}})</h2>
{{range .V.Failures.Items}}<h3><b>{{.Outcome}}</b>: {{.ID}}</h3>
{{if .Rerun}}<p>Rerun: <code>{{.Rerun}}</code></p>
{{end}}{{if .Score}}<p>Flakiness score: {{.Score}}</p>
{{end}}{{if .Message}}<pre>{{.Message}}</pre>
{{end}}{{end}}{{if .V.Failures.Left}}<p>…and {{.V.Failures.Left}} more not shown.</p>
{{end}}{{end}}{{if and .V.FixedKnown .V.Fixed.Total}}<details><summary>Fixed ({{.V.Fixed.Total}})</summary>
<ul>
{{range .V.Fixed.Items}}<li>{{.}}</li>
{{end}}</ul>
{{if .V.Fixed.Left}}<p>…and {{.V.Fixed.Left}} more not shown.</p>
{{end}}</details>
{{end}}{{if .V.Flaky.Total}}<details><summary>Flaky ({{.V.Flaky.Total}})</summary>
<ul>
{{range .V.Flaky.Items}}<li>{{.ID}}{{if .State}} — {{.State}}{{end}}</li>
{{end}}</ul>
{{if .V.Flaky.Left}}<p>…and {{.V.Flaky.Left}} more not shown.</p>
{{end}}</details>
{{else}}<p>Flaky tests: none.</p>
{{end}}<p>{{.FlakyList}}</p>
</body>
</html>
`))
})

// HTML writes the packet as one HTML page, with no script: the same
// content as Markdown, every string from a report escaped by html/template.
func HTML(w io.Writer, in Input, opts ...Option) error {
	if in.After == nil {
		return ErrNoRun
	}
	v := newView(in, newConfig(opts))
	return page().Execute(w, struct {
		V                                           view
		Headline, RunState, BaseFailures, FlakyList string
		Alert                                       bool
	}{
		V:            v,
		Headline:     v.headline(plain),
		RunState:     v.runState(plain),
		BaseFailures: v.baseFailuresText(),
		FlakyList:    v.flakyListText(plain),
		Alert:        v.HasBase && (!v.Available || v.NewFailures.Total > 0),
	})
}
