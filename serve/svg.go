package serve

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The history pages draw their charts as SVG in the page, laid out here
// and written by the templates (history_svg.tmpl), so they read without
// JavaScript and every label is escaped as any other text.

// Chart geometry, in SVG user units.
const (
	chartWidth   = 540
	chartHeight  = 180
	chartLeft    = 56 // room for the value axis labels
	chartRight   = 12
	chartTop     = 12
	chartBottom  = 24 // room for the run axis labels
	stripCell    = 12
	stripGap     = 2
	stripPerLine = 50
)

// chartValue is one run's value; OK is false when the run states none.
type chartValue struct {
	Run   string
	When  string
	Value float64
	OK    bool
}

// chart is a line chart laid out: one polyline per stretch of known
// values, a dot per known value, and labels.
type chart struct {
	ID, Title     string
	Width, Height int
	Lines         []string
	Points        []chartPoint
	YLabels       []chartLabel
	// First and Last label the run axis; Empty says no run has a value.
	First, Last string
	Empty       bool
	// Known is the number of runs with a value; R the dots' radius, smaller
	// when they are many.
	Known int
	R     string
	// AxisEnd is where the run axis ends.
	AxisEnd int
}

// chartPoint is a dot, with its run and value for its tooltip and the
// DOM (data-run, data-value).
type chartPoint struct {
	X, Y  string
	Run   string
	Value string
	When  string
}

// chartLabel is a value axis label at height Y.
type chartLabel struct {
	Y    string
	Text string
}

// coord writes an SVG coordinate.
func coord(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// lineChart lays out vals (oldest first) against a value axis from 0 to
// top (the largest value when top is 0), each value written by format.
func lineChart(id, title string, vals []chartValue, top float64, format func(float64) string) chart {
	c := chart{ID: id, Title: title, Width: chartWidth, Height: chartHeight, AxisEnd: chartWidth - chartRight}
	if top <= 0 {
		for _, v := range vals {
			if v.OK && v.Value > top {
				top = v.Value
			}
		}
	}
	if top <= 0 {
		top = 1
	}
	plotW := float64(chartWidth - chartLeft - chartRight)
	plotH := float64(chartHeight - chartTop - chartBottom)
	x := func(i int) float64 {
		if len(vals) == 1 {
			return chartLeft + plotW/2
		}
		return chartLeft + plotW*float64(i)/float64(len(vals)-1)
	}
	y := func(v float64) float64 { return chartTop + plotH*(1-min(max(v/top, 0), 1)) }
	var line []string
	flush := func() {
		if len(line) > 0 {
			c.Lines = append(c.Lines, strings.Join(line, " "))
			line = nil
		}
	}
	for i, v := range vals {
		if !v.OK {
			flush()
			continue
		}
		px, py := coord(x(i)), coord(y(v.Value))
		line = append(line, px+","+py)
		c.Points = append(c.Points, chartPoint{X: px, Y: py, Run: v.Run, Value: format(v.Value), When: v.When})
		c.Known++
	}
	flush()
	c.Empty = c.Known == 0
	c.R = "2.5"
	if c.Known > 100 {
		c.R = "1.2"
	}
	for _, f := range []float64{0, 0.5, 1} {
		c.YLabels = append(c.YLabels, chartLabel{Y: coord(y(top*f) + 4), Text: format(top * f)})
	}
	if len(vals) > 0 {
		c.First, c.Last = vals[0].When, vals[len(vals)-1].When
	}
	return c
}

// stripCellOf is one run of a history strip: a cell coloured by outcome,
// linking to the run.
type stripCellOf struct {
	X, Y    int
	Outcome string
	Run     string
	When    string
	Link    string
	Detail  string
}

// strip is a test's history strip laid out, stripPerLine cells a line.
type strip struct {
	Width, Height int
	Cells         []stripCellOf
}

// layStrip places cells (oldest first) on lines of stripPerLine.
func layStrip(cells []stripCellOf) strip {
	lines := (len(cells) + stripPerLine - 1) / stripPerLine
	s := strip{Width: stripPerLine * (stripCell + stripGap), Height: max(lines, 1) * (stripCell + stripGap)}
	for i := range cells {
		cells[i].X = (i % stripPerLine) * (stripCell + stripGap)
		cells[i].Y = (i / stripPerLine) * (stripCell + stripGap)
	}
	s.Cells = cells
	return s
}

// percentText writes a share as a percentage.
func percentText(v float64) string { return fmt.Sprintf("%.1f%%", v*100) }

// secondsText writes a time in seconds at a precision fit for it.
func secondsText(v float64) string {
	switch {
	case v == 0:
		return "0 s"
	case v < 1:
		return fmt.Sprintf("%.1f ms", v*1000)
	case v < 10:
		return fmt.Sprintf("%.2f s", v)
	}
	return fmt.Sprintf("%.0f s", v)
}

// countText writes a count.
func countText(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// countTop is the top of a value axis for counts up to most: even and at
// least 2, so that its half is a count too.
func countTop(most float64) float64 {
	top := max(2, math.Ceil(most))
	if int(top)%2 == 1 {
		top++
	}
	return top
}
