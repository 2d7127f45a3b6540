// Package window is the host's window supervisor (the contract's
// "Lifecycle"): it starts the desktop window program with
// --state PATH --parent-pid PID once the first state.json is written, and
// keeps it alive.
//
//   - A window that exits on its own is logged (window-exit: exit code or
//     signal, how long it lived, and the last line of window-crash.log when
//     that file was written during this window's life) and spawned again
//     after Config.Respawn (15 s). A death is quick when the window lived
//     less than Config.QuickLife (60 s); after QuickDeaths (3) quick deaths
//     in a row the wait is Config.SlowRespawn (5 min), and a window that
//     lived long resets the count.
//   - A window that wrote quit.json ({"wallMs": …}, beside the state file)
//     with a wallMs newer than the host's boot was quit from the tray:
//     window-quit is logged and no window is spawned until wallMs +
//     Config.QuitHold (1 h). An older quit.json is history; a malformed one
//     is reported and the exit treated as any other.
//   - StartNow ends a wait or a quit hold and spawns at once.
//   - On Run's context ending the window is asked to go (SIGTERM to its
//     process group; on Windows it is terminated) and killed after
//     Config.Grace. If the host is killed outright the window goes with it:
//     on Linux through the parent-death signal (SIGKILL), on Windows through
//     a job object that kills on close; on macOS and the BSDs the window's
//     own --parent-pid watch is what ends it.
//
// Timers run on monotonic time through Config.Clock, which tests replace
// with a fake so 15 s, 5 min and 1 h pass in microseconds. The window's
// stdout and stderr go to the log at DEBUG, one record per line, never to
// the terminal. window.log is the window's own and is never read;
// window-crash.log is quoted, never acted on.
package window
