// Bria's PermissionRequest hook for Claude Code (configured per session with `--settings`) and
// Codex (per run with `-c hooks.PermissionRequest=…`); for Claude also its PreToolUse hook (below).
// Usage: node permission-hook.mjs <socket> <briaSessionId> <boundMs> [claude|codex]
// Reads the hook's JSON from stdin, hands it to the local agent over its private Unix socket and
// waits (at most boundMs) for the answer, which it prints on stdout as the hook's decision.
// While the agent is away (restarting, or not yet back when the request came) it keeps trying to
// reach it, with the same request, for a while within the bound. Whatever else goes wrong (bad input, bound reached) it prints nothing and exits 0:
// the CLI then keeps its own dialog at the computer (Claude shows it while the hook runs anyway;
// Codex shows it once the hook has ended).
// Plain JavaScript on purpose: it starts once per permission request and must start fast.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

const [socketPath, sessionId, boundArg, executorArg] = process.argv.slice(2);
const executor = executorArg === 'codex' ? 'codex' : 'claude';
const boundMs = Number(boundArg) > 0 ? Number(boundArg) : 60_000;
/** Pause between connection attempts while the agent is away. */
const RETRY_MS = 250;
/**
 * How long a hook whose agent went away mid-wait tries to reach it again (an agent restart).
 */
const RECONNECT_WINDOW_MS = 60_000;
/**
 * How long a hook that could not reach the agent at all keeps trying: the agent may be restarting
 * right then (a hook given up at once left Claude's own dialog on the screen, which no phone can
 * answer, and the session's messages waited behind it; docs/reliability.md). Claude shows its dialog
 * while the hook runs, so trying costs nothing there; Codex shows its own only after the hook ended,
 * so a Codex hook tries for a shorter while (an agent that stays away delays that dialog so long).
 */
const FIRST_REACH_MS = executor === 'claude' ? RECONNECT_WINDOW_MS : 15_000;

/**
 * The most this hook sends of the CLI's input (bytes of JSON; hook-wire.ts HOOK_REQUEST_BUDGET; the
 * agent refuses lines over 256 KiB). A Write carries the whole file: long strings are clipped with a
 * marker (halving the cut until it fits), so the user sees an excerpt and the agent never stores more.
 */
const REQUEST_BUDGET = 192 * 1024;

function clipRequest(request) {
  const size = (v) => Buffer.byteLength(JSON.stringify(v));
  if (size(request) <= REQUEST_BUDGET) return request;
  for (let limit = 8000; limit >= 16; limit = Math.floor(limit / 2)) {
    const clip = (v, depth) => {
      if (typeof v === 'string') return v.length > limit ? `${v.slice(0, limit)}… [${v.length - limit} more characters]` : v;
      if (depth > 16 || v === null || typeof v !== 'object') return typeof v === 'object' ? null : v;
      if (Array.isArray(v)) return v.slice(0, 200).map((x) => clip(x, depth + 1));
      return Object.fromEntries(
        Object.entries(v)
          .slice(0, 200)
          .map(([k, x]) => [k.slice(0, 200), clip(x, depth + 1)]),
      );
    };
    const out = clip(request, 0);
    if (size(out) <= REQUEST_BUDGET) return out;
  }
  return { hook_event_name: String(request?.hook_event_name ?? '').slice(0, 100), clipped: true };
}

function giveUp() {
  process.exit(0);
}

/** The parent of `pid` from /proc (Linux); null where it cannot be read (gone, or no /proc). */
function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]) || null;
  } catch {
    return null;
  }
}

/**
 * The CLI that asked died (SIGKILL, crash): nobody can take the answer any more, and a hook left
 * waiting would keep the request pending in the agent (which then holds the session's queue) until
 * the bound. So the hook ends as soon as the process that ran it is gone: its parent is the CLI, or
 * a shell the CLI ran it with (then the shell's parent is the CLI).
 */
function endWithTheCli() {
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  setInterval(() => {
    if (process.ppid !== parent || (grandparent !== null && parentOf(parent) !== grandparent)) giveUp();
  }, 250).unref();
}

async function readStdin() {
  const parts = [];
  for await (const chunk of process.stdin) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

/** How long a PreToolUse hook waits for the agent's go (a paste in progress takes about a second). */
const TOOL_GATE_MS = 10_000;

/**
 * PreToolUse (Claude): Claude draws a permission dialog only after this hook has returned, and a
 * paste + Enter typed into that dialog would answer it (docs/cli-facts.md, "Typing into a dialog"). So the hook tells the agent a
 * tool call begins and waits for its go: the agent holds the go while it is typing a message into
 * this session, and types nothing while a tool call it heard of has not ended. Prints nothing
 * (Claude's own permission rules then apply as usual); an agent that cannot be reached does not
 * hold the tool.
 */
function toolGate(request) {
  setTimeout(giveUp, TOOL_GATE_MS).unref();
  const socket = connect(socketPath);
  socket.setEncoding('utf8');
  socket.on('error', giveUp);
  socket.on('close', giveUp);
  socket.on('connect', () => {
    const toolUseId = typeof request?.tool_use_id === 'string' ? request.tool_use_id : null;
    socket.write(`${JSON.stringify({ type: 'tool_start', sessionId, toolUseId, hookPid: process.pid })}\n`);
  });
  socket.on('data', (chunk) => {
    if (chunk.includes('"go"')) giveUp();
  });
}

async function main() {
  if (!socketPath || !sessionId) return giveUp();
  endWithTheCli();
  let request;
  try {
    request = JSON.parse(await readStdin());
  } catch {
    return giveUp();
  }
  if (request?.hook_event_name === 'PreToolUse') return toolGate(request);
  request = clipRequest(request);
  const deadline = Date.now() + boundMs;
  setTimeout(giveUp, boundMs);
  // The same key on every connection: an agent that restarted while this hook waited finds its
  // request again (the CLI's dialog is the same one) instead of seeing a new one.
  const hookKey = randomUUID();
  let everConnected = false;
  let lostAt = 0;
  const attempt = () => {
    const socket = connect(socketPath);
    let buffer = '';
    let answered = false;
    let retried = false;
    // The agent went away (restart, crash) or is not listening yet: try again until the bound.
    const retry = () => {
      if (answered || retried) return;
      retried = true;
      socket.destroy();
      if (lostAt === 0) lostAt = Date.now();
      const window = everConnected ? RECONNECT_WINDOW_MS : FIRST_REACH_MS;
      if (Date.now() + RETRY_MS >= Math.min(deadline, lostAt + window)) return giveUp();
      setTimeout(attempt, RETRY_MS);
    };
    socket.setEncoding('utf8');
    socket.on('error', retry);
    socket.on('close', retry);
    socket.on('connect', () => {
      everConnected = true;
      lostAt = 0;
      socket.write(`${JSON.stringify({ type: 'permission_request', sessionId, executor, hookPid: process.pid, hookKey, request })}\n`);
    });
    socket.on('data', (chunk) => {
      if (answered) return;
      buffer += chunk;
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        // The agent ended this request (answered at the computer is not knowable here; expired), or
        // refused the connection (with its reason): nothing to print, the CLI keeps its dialog.
        if (msg?.type === 'end' || msg?.type === 'refused') return giveUp();
        if (msg?.type !== 'answer' || typeof msg.output !== 'object' || msg.output === null) continue;
        answered = true;
        const done = () => process.exit(0);
        socket.removeAllListeners('close');
        socket.removeAllListeners('error');
        socket.on('error', done);
        // The answer goes to the CLI first; the acknowledgement (the agent records that the hook got
        // it) is best effort and never holds the exit for long.
        process.stdout.write(`${JSON.stringify(msg.output)}\n`, () => {
          setTimeout(done, 1000).unref();
          socket.end(`${JSON.stringify({ type: 'delivered', requestId: msg.requestId })}\n`, done);
        });
        return;
      }
    });
  };
  attempt();
}

main().catch(giveUp);
