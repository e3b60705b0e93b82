package check

import (
	"io"
	"os"
	"sync"
	"time"
)

// output is the check's standard input, output and error: pipes this
// process copies through (into the tail and the destinations), so that the
// check's process is waited for apart from its output.
type output struct {
	childIn, childOut, childErr *os.File // the check's ends
	inW, outR, errR             *os.File // ours
	copies                      sync.WaitGroup
}

// newOutput makes the pipes; what the check writes to its standard output
// also goes to c (nil when it is not kept).
func newOutput(cfg *config, tl *tail, c *capture) (*output, error) {
	o := &output{}
	var err error
	if o.outR, o.childOut, err = os.Pipe(); err != nil {
		return nil, err
	}
	if o.errR, o.childErr, err = os.Pipe(); err != nil {
		o.closeAll()
		return nil, err
	}
	switch in := cfg.stdin.(type) {
	case nil:
	case *os.File:
		o.childIn = in
	default:
		var r *os.File
		if r, o.inW, err = os.Pipe(); err != nil {
			o.closeAll()
			return nil, err
		}
		o.childIn = r
		go func() {
			_, _ = io.Copy(o.inW, in) // a check that stops reading its input is not an error
			_ = o.inW.Close()
		}()
	}
	o.copies.Add(2)
	go o.copy(o.outR, &tee{dst: cfg.stdout, tail: tl, capture: c})
	go o.copy(o.errR, &tee{dst: cfg.stderr, tail: tl})
	return o, nil
}

func (o *output) copy(r *os.File, w *tee) {
	defer o.copies.Done()
	_, _ = io.Copy(w, r) // a tee never fails; the read side ends when the check closes its ends
}

// started closes the check's ends here once it has started (or failed to).
func (o *output) started() {
	o.childOut.Close()
	o.childErr.Close()
	if o.inW != nil {
		o.childIn.Close()
	}
}

// finish reads the output to its end, which comes once every process of
// the check has ended; a process that outlived the check holds it open no
// longer than DefaultPipeWait. It then closes the pipes.
func (o *output) finish() {
	done := make(chan struct{})
	go func() {
		o.copies.Wait()
		close(done)
	}()
	t := time.NewTimer(DefaultPipeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	o.closeAll()
	<-done
}

func (o *output) closeAll() {
	for _, f := range []*os.File{o.outR, o.errR, o.childOut, o.childErr, o.inW} {
		if f != nil {
			f.Close()
		}
	}
}
