//go:build !unix && !windows

package window

// alive is not known here; TestMain does not run the tests on these
// platforms (they have no processes to supervise, or no signals).
func alive(int) bool { return false }
