package testresultsreceiver

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configauth"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/extension/extensionauth"
)

// tokenAuth is an authenticator extension that admits "Authorization:
// Bearer ext-token" as the subject ext-user.
type tokenAuth struct {
	component.StartFunc
	component.ShutdownFunc
}

var _ extensionauth.Server = tokenAuth{}

func (tokenAuth) Authenticate(ctx context.Context, headers map[string][]string) (context.Context, error) {
	for _, v := range headers["Authorization"] {
		if v == "Bearer ext-token" {
			info := client.FromContext(ctx)
			info.Auth = subjectAuth("ext-user")
			return client.NewContext(ctx, info), nil
		}
	}
	return ctx, errors.New("no valid token")
}

// TestUploadWithAuthenticator: with http::auth, the authenticator decides:
// no credentials is 401 (as problem details), and its subject reaches the
// pipeline.
func TestUploadWithAuthenticator(t *testing.T) {
	cfg := httpConfig(t, "")
	h := cfg.HTTP.Get()
	h.Secret = ""
	h.SecretSubject = DefaultSecretSubject
	id := component.MustNewID("tokenauth")
	h.Auth = configoptional.Some(confighttp.AuthConfig{Config: configauth.Config{AuthenticatorID: id}})
	cfg.HTTP = configoptional.Some(*h)
	require.NoError(t, cfg.Validate())
	host := testHost{Host: componenttest.NewNopHost(), ext: map[component.ID]component.Component{id: tokenAuth{}}}
	hr := startHarness(t, cfg, host)

	body, ct := multipartBody(t, map[string][]byte{"pytest.xml": readRepoFile(t, pytestReports+"/pytest-xunit2.xml")})
	r := post(t, uploadURL(cfg), ct, "", body)
	assert.Equal(t, http.StatusUnauthorized, r.status)
	assert.Contains(t, r.body["detail"], "no valid token")

	body, ct = multipartBody(t, map[string][]byte{"pytest.xml": readRepoFile(t, pytestReports+"/pytest-xunit2.xml")})
	r = post(t, uploadURL(cfg), ct, "ext-token", body)
	require.Equal(t, http.StatusOK, r.status, "%v", r.body)
	require.Len(t, hr.traces.AllTraces(), 1)
	info := client.FromContext(hr.traces.Contexts()[0])
	require.NotNil(t, info.Auth)
	assert.Equal(t, "ext-user", info.Auth.GetAttribute("subject"))
}
