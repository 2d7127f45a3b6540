// notch-web: this __DISPLAY__ plugin is notch-web's ("notch-web hooks uninstall __NAME__" removes it; an install rewrites it).
//
// It tells a notch-web board what this __DISPLAY__ does. It forwards a few
// of its own events (OpenCode's, which its forks keep), cut down to the
// fields the board reads, to the host's /agents-notch/hooks/__NAME__, one at
// a time and in order (fetch, at most 1 s each, at most 256 waiting). It
// never throws into __DISPLAY__ and never holds it up: a host that is down
// only loses the events.
//
// A permission __DISPLAY__ asks is also sent outside the queue, as a request
// the host holds while the board may answer (at most 10 min 5 s, the
// host's longest hold; at most 16 at once): the board's answer becomes
// its permission reply through the plugin's client (allow "once",
// always "always", deny "reject"); an empty answer replies nothing, so the
// TUI's own prompt, shown meanwhile, decides. The first answer wins.
//
// Once, at load, it runs "notch-web hook __NAME__ --origin", which names
// the host's URL and this __DISPLAY__'s process and terminal: the host watches
// that process, so a row never outlives it (kill -9 included).

import { spawn } from "node:child_process"

const EXE = __EXE__
const URL_FLAG = __URL__
const AGENT = __AGENT__
const SEND_MS = 1000
const MAX_QUEUE = 256
const FLUSH_MS = 1500
const MAX_TEXT = 1000
const MAX_SEEN = 1000
const ASK_MS = 605000
const MAX_ASKING = 16
const REPLY_MS = 5000
const MAX_ANSWER = 65536

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

// seen remembers the last value sent per key, so a repeat is not sent again.
function seen() {
  const m = new Map()
  return (key, value) => {
    if (m.get(key) === value) return true
    if (m.size >= MAX_SEEN) m.clear()
    m.set(key, value)
    return false
  }
}

// answer is the agent's reply for the host's answer to a held permission
// request (a PermissionRequest decision, as Claude Code's hooks take it),
// or null: no answer.
function answer(body) {
  try {
    const d = JSON.parse(body).hookSpecificOutput.decision
    if (d.behavior === "deny") return "reject"
    if (d.behavior !== "allow") return null
    return Array.isArray(d.updatedPermissions) && d.updatedPermissions.length > 0 ? "always" : "once"
  } catch {
    return null
  }
}

export const NotchWeb = async ({ directory, client }) => {
  const where = origin()
  let chain = Promise.resolve()
  let waiting = 0
  let asking = 0
  const parents = new Map() // a child session → its root session
  const roots = new Set()
  const titled = seen()
  const status = seen()
  const tools = seen()
  const usage = seen()

  const send = (type, sessionID, properties) => {
    if (typeof sessionID !== "string" || sessionID === "" || waiting >= MAX_QUEUE) return
    const body = JSON.stringify({
      hook_event_name: type,
      session_id: sessionID,
      parent_id: parents.get(sessionID) || "",
      cwd: typeof directory === "string" ? directory : "",
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

  // ask sends a permission request to be held for the board's answer,
  // and replies to the agent with it.
  const ask = (sessionID, requestID, properties) => {
    if (typeof sessionID !== "string" || sessionID === "" || typeof requestID !== "string" || requestID === "") return
    if (asking >= MAX_ASKING) return
    const body = JSON.stringify({
      hook_event_name: "notch-web.permission",
      session_id: sessionID,
      parent_id: parents.get(sessionID) || "",
      cwd: typeof directory === "string" ? directory : "",
      properties,
    })
    asking++
    ;(async () => {
      const o = await where
      if (!o) return
      const res = await fetch(o.url + "/agents-notch/hooks/" + AGENT, {
        method: "POST",
        headers: { ...(o.headers || {}), "Content-Type": "application/json" },
        body,
        signal: AbortSignal.timeout(ASK_MS),
      })
      const got = res.ok ? await res.text() : ""
      if (!res.ok) await res.body?.cancel()
      const reply = got.length <= MAX_ANSWER ? answer(got) : null
      if (!reply || !client || typeof client.postSessionIdPermissionsPermissionId !== "function") return
      await client.postSessionIdPermissionsPermissionId({
        path: { id: sessionID, permissionID: requestID },
        body: { response: reply },
        signal: AbortSignal.timeout(REPLY_MS),
      })
    })()
      .catch(() => {})
      .finally(() => {
        asking--
      })
  }

  const handle = (event) => {
    const p = event.properties || {}
    switch (event.type) {
      case "session.created":
      case "session.updated": {
        const info = p.info || {}
        const id = info.id
        if (typeof id !== "string") return
        if (typeof info.parentID === "string" && info.parentID !== "") {
          parents.set(id, parents.get(info.parentID) || info.parentID)
        } else {
          roots.add(id)
        }
        if (titled(id, info.title) && event.type === "session.updated") return
        send(event.type, id, { title: text(info.title) })
        return
      }
      case "session.status": {
        const t = p.status && p.status.type
        if (status(p.sessionID, t)) return
        send(event.type, p.sessionID, { status: { type: text(t), message: text(p.status.message) } })
        return
      }
      case "session.idle":
        status(p.sessionID, "idle")
        send(event.type, p.sessionID, {})
        return
      case "session.error": {
        const e = p.error || {}
        send(event.type, p.sessionID, { error: { name: text(e.name), message: text(e.data && e.data.message) } })
        return
      }
      case "message.updated": {
        const info = p.info || {}
        if (info.role !== "assistant") return
        const t = info.tokens || {}
        const c = t.cache || {}
        const err = info.error && text(info.error.name)
        const context = count(t.input) + count(c.read) + count(c.write)
        if (context === 0 && !err) return
        if (usage(info.id, context + "/" + (err || ""))) return
        send(event.type, info.sessionID, {
          info: {
            role: "assistant",
            tokens: { input: count(t.input), output: count(t.output), cache: { read: count(c.read), write: count(c.write) } },
            error: err ? { name: err } : undefined,
          },
        })
        return
      }
      case "message.part.updated": {
        const part = p.part || {}
        const st = part.state || {}
        if (part.type !== "tool" || !["running", "completed", "error"].includes(st.status)) return
        if (tools(part.callID, st.status)) return
        send(event.type, part.sessionID, {
          part: { type: "tool", tool: text(part.tool), callID: text(part.callID), state: { status: st.status, error: text(st.error) } },
        })
        return
      }
      case "permission.asked": {
        const m = p.metadata || {}
        const asked = {
          id: text(p.id),
          permission: text(p.permission),
          patterns: Array.isArray(p.patterns) ? p.patterns.slice(0, 3).map(text) : [],
          metadata: { command: text(m.command), filepath: text(m.filepath), url: text(m.url) },
          tool: p.tool ? { callID: text(p.tool.callID) } : undefined,
        }
        send(event.type, p.sessionID, asked)
        ask(p.sessionID, p.id, { ...asked, always: Array.isArray(p.always) ? p.always.slice(0, 17).map(text) : [] })
        return
      }
      case "permission.replied":
        send(event.type, p.sessionID, { requestID: text(p.requestID), reply: text(p.reply) })
        return
    }
  }

  return {
    event: async ({ event }) => {
      try {
        handle(event)
      } catch {}
    },
    // The agent is closing this project (its process is ending): every
    // session it ran ends, and what is waiting is sent first, briefly.
    dispose: async () => {
      try {
        for (const id of roots) send("notch-web.dispose", id, {})
        await Promise.race([chain, new Promise((r) => setTimeout(r, FLUSH_MS))])
      } catch {}
    },
  }
}
