// Package launch starts agent sessions from the board on this machine,
// under rules this machine keeps (docs/launch.md): the launch file
// (launch.json in the DSH home, mode 0600, never written from the board:
// File, Read, Write) names the project roots, the agents and their fixed
// argv, where new git worktrees may be made, and the bounds; Launcher.Start
// checks a Request against it and starts the agent in a new window of
// notch-web's own tmux session (new-window, a fixed argv, no shell), in
// the folder or a new worktree of it, so its hooks open the row as for
// any session. Nothing here deletes anything.
package launch
