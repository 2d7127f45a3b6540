//go:build !unix

package proc

func closeFD(int) {}
