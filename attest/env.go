package attest

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// CIRunURL returns the URL of the CI run the process is part of, from the
// variables the CI system sets: GitHub Actions
// ($GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID, with
// /attempts/$GITHUB_RUN_ATTEMPT when set) or GitLab CI ($CI_JOB_URL). It is
// "" elsewhere: the url is then left out, never guessed.
func CIRunURL(getenv func(string) string) string {
	server, repo, id := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID")
	if server != "" && repo != "" && id != "" {
		u := strings.TrimRight(server, "/") + "/" + repo + "/actions/runs/" + id
		if a := getenv("GITHUB_RUN_ATTEMPT"); a != "" {
			u += "/attempts/" + a
		}
		return u
	}
	return getenv("CI_JOB_URL")
}

// headTimeout bounds git rev-parse.
const headTimeout = 10 * time.Second

// HeadCommit returns the commit HEAD names in the git work tree holding
// dir ("": the current folder): the commit a verifier asks about when it
// names none.
func HeadCommit(ctx context.Context, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, headTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--verify", "--end-of-options", "HEAD^{commit}")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		where := dir
		if where == "" {
			where = "the current folder"
		}
		return "", fmt.Errorf("attest: no commit: %s is not in a git work tree with a commit (git rev-parse HEAD: %w)", where, err)
	}
	c := strings.TrimSpace(string(out))
	if !IsCommitID(c) {
		return "", fmt.Errorf("attest: git rev-parse HEAD gave %q, not a commit id", c)
	}
	return c, nil
}
