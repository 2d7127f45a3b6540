package terminal

// Arg is an argument as tmux must be given it to pass it on as it is
// (literal): one that ends in ";" — which tmux reads as the end of its
// command — escaped. host/launch passes every argument of an agent's argv
// to new-window so.
func Arg(s string) string { return literal(s) }
