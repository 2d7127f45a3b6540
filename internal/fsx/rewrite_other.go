//go:build !linux

package fsx

func (r *Rewriter) write(data []byte) error {
	r.plain = true
	return WriteFileAtomicNoSync(r.Path, data)
}

func (r *Rewriter) close() error { return nil }
