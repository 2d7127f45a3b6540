// Package install puts notch-web's hooks into an agent's own settings, takes
// them out again, and says what is installed where: the files behind
// "notch-web hooks install|uninstall|status <agent>".
//
// What goes where is each agent's agent.Spec (adapters/registry): its
// scopes and files, its hooks with their kind (http or command), timeout
// and matcher, the entry style and the settings that turn hooks off. Today:
//
//	agent        scope    file                                  what
//	claude-code  user     ~/.claude/settings.json               http hooks to <URL>/agents-notch/hooks/claude-code
//	             project  .claude/settings.json                   (2 s; Notification only for permission_prompt);
//	             local    .claude/settings.local.json             SessionStart a command hook (5 s)
//	codex        user     ~/.codex/hooks.json                   command hooks: notch-web hook codex (5 s; 3 s for
//	                                                              SessionEnd and Interrupt)
//	                      ~/.codex/config.toml                  notify = ["<notch-web>", "hook", "codex"]; the
//	                                                              hooks' trust is read from it (codextrust.go)
//	gemini       user     ~/.gemini/settings.json               command hooks: notch-web hook gemini (3 s;
//	             project  .gemini/settings.json                   Notification only for ToolPermission)
//	opencode     user     ~/.config/opencode/plugin/notch-web.js  a plugin file of notch-web's (plugin.go), which
//	             project  .opencode/plugin/notch-web.js            POSTs OpenCode's events to <URL>/agents-notch/hooks/opencode
//
// (CLAUDE_CONFIG_DIR and CODEX_HOME move the user files as they move the
// agents'.)
//
// The JSON files are edited as text (jsonc.go parses them with their
// comments and remembers where every value is; edit.go splices): the user's
// own hooks, every other key, its order, spacing and comments stay byte for
// byte; notch-web's entries are laid out as the file lays out its own. A
// second install changes nothing; install then uninstall gives the file
// back (except an empty "hooks" or event list of the user's, which goes).
// The old file is copied to FILE.bak-<ms> before any write, the write is
// atomic and keeps the file's mode (a new file's is 0644 less the umask,
// never widened past it), and a symlinked file is written
// through the link. A file that does not parse, or whose shape is not the
// documented one on the way to our entries, is refused untouched. file.go
// is as careful as a text editor: the temporary file is created with the
// final mode, a dangling link's target is written (the link stays), a
// change the user saves between the read and the rename is read again and
// merged (never lost), and anything but a regular file is refused without
// blocking. Every refusal is a FileError: the file, quoted, and what to do.
//
// Only what notch-web wrote is notch-web's (ours.go): a command whose
// program is exactly notch-web running "hook <agent>" (and at most --url),
// or an http hook whose URL's path is exactly the endpoint.
//
// Codex's config.toml is TOML, read without a TOML library just enough to
// edit one line (toml.go): notify is inserted after the last top-level key,
// or our own one-line notify replaced or removed. Anything else (another
// program's notify, a notify over several lines, a file it cannot follow) is
// left as it is, and Install says which line to add where. Codex's hooks
// are on by default since 0.124 ([features] hooks); notch-web never writes
// the deprecated codex_hooks flag, and only reports a hooks = false.
package install
