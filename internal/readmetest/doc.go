// Package readmetest holds the test that keeps the README's set-up and
// quickstart true: it runs the README's commands as written, with a freshly
// built testresults, and checks that each ends as the README says.
package readmetest
