// A tmux pane for the Reply and Stop tests: the host's tmux is a stand-in
// on PATH that records its argv, and the agent in the pane a process on a
// terminal of its own (script(1)), the terminal's foreground, as the host
// checks before it types.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export interface Pane {
  /** sock is the tmux socket the hooks name (a listening Unix socket). */
  sock: string;
  /** bin holds the tmux stand-in: put it first on the host's PATH. */
  bin: string;
  /** argvLog has one NUL-separated argv a line, each tmux run. */
  argvLog: string;
  /** agentProc is the Notch-Proc header naming the agent's process. */
  agentProc: string;
  close(): void;
}

// openPane makes the socket, the stand-in and the agent; id is the pane's
// id (%N) that list-panes names with the agent's pid, and with the input's
// screen asked for, the nonce line and Claude Code's empty input box follow.
export async function openPane(id: string): Promise<Pane> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notch-pw-pane-'));
  const sock = path.join(dir, 'tmux-sock');
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(sock, resolve));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const argvLog = path.join(dir, 'argv');
  const agent: ChildProcess = spawn('script', ['-qfec', 'exec sleep 600', '/dev/null'], { stdio: 'ignore' });
  const pid = await childOf(agent.pid!, 'sleep');
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const agentProc = new URLSearchParams({ pid: String(pid), start, boot }).toString();
  fs.writeFileSync(
    path.join(bin, 'tmux'),
    `#!/bin/sh\nprintf '%s\\0' "$@" >> '${argvLog}'\necho >> '${argvLog}'\nif [ "$3" = list-panes ]; then echo '${id} ${pid}'; fi\n` +
      `if [ "$8" = display-message ]; then printf '%s\\n────\\n❯ \\n────\\n' "\${10}"; fi\nexit 0\n`,
    { mode: 0o755 },
  );
  return {
    sock,
    bin,
    argvLog,
    agentProc,
    close() {
      server.close();
      agent.kill();
    },
  };
}

// childOf waits for parent's child named name and returns its pid.
async function childOf(parent: number, name: string): Promise<number> {
  for (let i = 0; i < 500; i++) {
    for (const e of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(e)) continue;
      try {
        const st = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
        const rest = st.slice(st.lastIndexOf(')') + 2).split(' ');
        if (st.includes(`(${name})`) && Number(rest[1]) === parent) return Number(e);
      } catch {
        // gone meanwhile
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ${name} under ${parent}`);
}
