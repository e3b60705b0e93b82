package cobertura

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

func TestParse(t *testing.T) {
	cov, err := Parse(strings.NewReader(`<?xml version="1.0"?>
<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">
<coverage line-rate="0,75" lines-covered="3" lines-valid="4"><packages/></coverage>`), "c.xml")
	require.NoError(t, err)
	assert.InDelta(t, 0.75, *cov.LineRate, 1e-12)
	assert.EqualValues(t, 3, *cov.LinesCovered)
	assert.EqualValues(t, 4, *cov.LinesValid)

	cov, err = Parse(strings.NewReader(`<coverage line-rate="1"/>`), "c.xml")
	require.NoError(t, err)
	assert.Nil(t, cov.LinesCovered)
}

func TestRefused(t *testing.T) {
	tests := map[string]error{
		`<coverage line-rate="2"/>`:                                  ErrValue,
		`<coverage line-rate="x"/>`:                                  ErrValue,
		`<coverage lines-covered="5" lines-valid="4"/>`:              ErrValue,
		`<coverage lines-covered="-1"/>`:                             ErrValue,
		`<coverage clover="4.4" generated="1"><project/></coverage>`: ErrNotCobertura,
		`<testsuite/>`:                                     ErrNotCobertura,
		`<coverage line-rate="0.5"><packages>`:             xmlsafe.ErrTruncated,
		`<!DOCTYPE coverage [<!ENTITY x "y">]><coverage/>`: xmlsafe.ErrEntity,
	}
	for doc, want := range tests {
		cov, err := Parse(strings.NewReader(doc), "c.xml")
		assert.ErrorIs(t, err, want, doc)
		assert.Nil(t, cov)
	}
}
