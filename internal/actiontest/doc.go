// Package actiontest runs the CI integrations the repository ships, the
// composite GitHub Action (action.yml) and the GitLab CI template
// (ci/gitlab/testresults.gitlab-ci.yml), the way their CI services would:
// their shell steps run under bash with the environment the service sets,
// against the testresults binary built from this checkout and a real check
// that writes a JUnit report. It holds tests only.
package actiontest
