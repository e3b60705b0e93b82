package mcpserver

import (
	"fmt"
	"net/http"
)

// maxOffset bounds an offset, as the query API bounds its own.
const maxOffset = 1 << 30

// Page says which part of a tool's lists an answer holds.
type Page struct {
	// Offset is the first entry of each list in this page; Size the most
	// entries a list holds in one page.
	Offset int `json:"offset"`
	Size   int `json:"size"`
	// Totals counts each list's entries over every page.
	Totals map[string]int `json:"totals"`
	// NextOffset is the offset of the next page, null on the last.
	NextOffset *int `json:"next_offset"`
}

// pager cuts lists into pages of PageSize from one offset.
type pager struct {
	offset int
	totals map[string]int
}

func newPager(offset int) (*pager, error) {
	if offset < 0 || offset > maxOffset {
		return nil, &toolProblem{Status: http.StatusBadRequest, Detail: fmt.Sprintf("offset must be an integer from 0 to %d", maxOffset)}
	}
	return &pager{offset: offset, totals: map[string]int{}}, nil
}

// cut returns the page of list s named name and counts s; nil stays nil (a
// list that is unknown is not an empty one).
func cut[T any](p *pager, name string, s []T) []T {
	p.totals[name] = len(s)
	if s == nil {
		return nil
	}
	if p.offset >= len(s) {
		return s[len(s):]
	}
	return s[p.offset:min(len(s), p.offset+PageSize)]
}

// page is the Page of what cut saw.
func (p *pager) page() Page {
	pg := Page{Offset: p.offset, Size: PageSize, Totals: p.totals}
	for _, n := range p.totals {
		if n > p.offset+PageSize {
			next := p.offset + PageSize
			pg.NextOffset = &next
			break
		}
	}
	return pg
}
