// Package textout renders runs, comparisons, verdicts and the flaky list as
// text for people: the summaries the testresults command prints on stderr
// and the tables it prints on stdout. Every name and message that came from
// a report is escaped for the terminal (package term); colour is painted
// only through a terminal writer that allows it.
//
// The JSON forms of the same things are their models' own (package
// testrun); this package holds only the words.
package textout
