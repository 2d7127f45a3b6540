// notch-web: this Pi extension is notch-web's ("notch-web hooks uninstall pi" removes it; an install rewrites it).
//
// It tells a notch-web board what this Pi does. It forwards a few of Pi's
// extension events, cut down to the fields the board reads, to the host's
// /agents-notch/hooks/pi, one at a time and in order (fetch, at most 1 s
// each, at most 256 waiting). It never throws into Pi and never holds it
// up: a host that is down only loses the events (session_shutdown waits
// at most 1.5 s for the queue to drain).
//
// Once, at load, it runs "notch-web hook pi --origin", which names the
// host's URL and this Pi's process and terminal: the host watches that
// process, so a row never outlives it (kill -9 included).

import { spawn } from "node:child_process"

const EXE = __EXE__
const URL_FLAG = __URL__
const AGENT = "pi"
const SEND_MS = 1000
const MAX_QUEUE = 256
const FLUSH_MS = 1500
const MAX_TEXT = 1000

// origin asks notch-web where to send and what to say of this process.
function origin() {
  return new Promise((resolve) => {
    let out = ""
    let settled = false
    const finish = (v) => {
      if (!settled) {
        settled = true
        resolve(v)
      }
    }
    try {
      const args = ["hook", AGENT, "--origin"]
      if (URL_FLAG) args.push("--url", URL_FLAG)
      const child = spawn(EXE, args, { stdio: ["ignore", "pipe", "ignore"] })
      const timer = setTimeout(() => {
        try {
          child.kill()
        } catch {}
        finish(null)
      }, 3000)
      child.stdout.on("data", (d) => {
        if (out.length < 8192) out += d
      })
      child.on("error", () => {
        clearTimeout(timer)
        finish(null)
      })
      child.on("close", () => {
        clearTimeout(timer)
        try {
          const o = JSON.parse(out)
          finish(o && typeof o.url === "string" ? o : null)
        } catch {
          finish(null)
        }
      })
    } catch {
      finish(null)
    }
  })
}

const text = (s) => (typeof s === "string" ? s.slice(0, MAX_TEXT) : undefined)
const count = (n) => (typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0)

export default function (pi) {
  const where = origin()
  let chain = Promise.resolve()
  let waiting = 0

  // send queues one event of the session ctx is in.
  const send = (type, ctx, properties) => {
    let id, file, cwd
    try {
      id = ctx.sessionManager.getSessionId()
      file = ctx.sessionManager.getSessionFile()
      cwd = ctx.cwd
    } catch {}
    if (typeof id !== "string" || id === "" || waiting >= MAX_QUEUE) return
    const body = JSON.stringify({
      hook_event_name: type,
      session_id: id,
      transcript_path: typeof file === "string" ? file : "",
      cwd: typeof cwd === "string" ? cwd : "",
      properties,
    })
    waiting++
    chain = chain
      .then(async () => {
        const o = await where
        if (!o) return
        const res = await fetch(o.url + "/agents-notch/hooks/" + AGENT, {
          method: "POST",
          headers: { ...(o.headers || {}), "Content-Type": "application/json" },
          body,
          signal: AbortSignal.timeout(SEND_MS),
        })
        await res.body?.cancel()
      })
      .catch(() => {})
      .finally(() => {
        waiting--
      })
  }
  const on = (type, f) => {
    pi.on(type, async (event, ctx) => {
      try {
        f(event || {}, ctx)
      } catch {}
    })
  }

  on("session_start", (e, ctx) => send("session_start", ctx, { reason: text(e.reason) }))
  on("before_agent_start", (e, ctx) => send("before_agent_start", ctx, { prompt: text(e.prompt) }))
  on("tool_execution_start", (e, ctx) =>
    send("tool_execution_start", ctx, { toolCallId: text(e.toolCallId), toolName: text(e.toolName) }),
  )
  on("tool_execution_end", (e, ctx) =>
    send("tool_execution_end", ctx, { toolCallId: text(e.toolCallId), toolName: text(e.toolName), isError: e.isError === true }),
  )
  on("message_end", (e, ctx) => {
    const m = e.message || {}
    if (m.role !== "assistant") return
    const u = m.usage || {}
    send("message_end", ctx, {
      role: "assistant",
      stopReason: text(m.stopReason),
      errorMessage: text(m.errorMessage),
      usage: { input: count(u.input), output: count(u.output), cacheRead: count(u.cacheRead), cacheWrite: count(u.cacheWrite) },
    })
  })
  on("agent_end", (e, ctx) => {
    // How the prompt ended: its last assistant message's stop reason.
    let stop, error
    const ms = Array.isArray(e.messages) ? e.messages : []
    for (let i = ms.length - 1; i >= 0; i--) {
      if (ms[i] && ms[i].role === "assistant") {
        stop = ms[i].stopReason
        error = ms[i].errorMessage
        break
      }
    }
    send("agent_end", ctx, { stopReason: text(stop), errorMessage: text(error) })
  })
  pi.on("session_shutdown", async (e, ctx) => {
    try {
      send("session_shutdown", ctx, { reason: text(e && e.reason) })
      await Promise.race([chain, new Promise((r) => setTimeout(r, FLUSH_MS))])
    } catch {}
  })
}
