package host

// procStartIsTicks: an agent's recorded process start (Claude Code's
// procStart) is in /proc's clock ticks, internal/proc's unit here.
const procStartIsTicks = true
