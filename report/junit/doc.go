// Package junit reads JUnit XML test reports, in every dialect the common
// runners write (pytest, gotestsum, go-junit-report, jest-junit, vitest,
// mocha, Cypress, karma, Playwright, Maven surefire and failsafe, Gradle,
// cargo-nextest, PHPUnit, CTest, Bazel, .NET loggers, Ant, the <testrun>
// export of Eclipse's JUnit view and others), into the test executions of a
// testrun.Run.
//
// One streaming parser reads all dialects; the dialect is detected for
// information only. Input is untrusted: the hardened reader of package
// report refuses entities, bounds sizes, depth, elements and cases, and
// keeps only a bounded start of each failure message.
package junit
