// Bria's PermissionRequest hook for Claude Code (configured per session with `--settings`) and
// Codex (per run with `-c hooks.PermissionRequest=…`).
// Usage: node permission-hook.mjs <socket> <briaSessionId> <boundMs> [claude|codex]
// Reads the hook's JSON from stdin, hands it to the local agent over its private Unix socket and
// waits (at most boundMs) for the answer, which it prints on stdout as the hook's decision.
// Whatever goes wrong (agent unreachable, bad answer, bound reached) it prints nothing and exits 0:
// the CLI then keeps its own dialog at the computer (Claude shows it while the hook runs anyway;
// Codex shows it once the hook has ended).
// Plain JavaScript on purpose: it starts once per permission request and must start fast.
import { connect } from 'node:net';

const [socketPath, sessionId, boundArg, executorArg] = process.argv.slice(2);
const executor = executorArg === 'codex' ? 'codex' : 'claude';
const boundMs = Number(boundArg) > 0 ? Number(boundArg) : 60_000;

function giveUp() {
  process.exit(0);
}

async function readStdin() {
  const parts = [];
  for await (const chunk of process.stdin) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

async function main() {
  if (!socketPath || !sessionId) return giveUp();
  let request;
  try {
    request = JSON.parse(await readStdin());
  } catch {
    return giveUp();
  }
  const timer = setTimeout(giveUp, boundMs);
  const socket = connect(socketPath);
  let buffer = '';
  let answered = false;
  socket.setEncoding('utf8');
  socket.on('error', giveUp);
  socket.on('close', giveUp);
  socket.on('connect', () => {
    socket.write(`${JSON.stringify({ type: 'permission_request', sessionId, executor, hookPid: process.pid, request })}\n`);
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
      if (msg?.type !== 'answer' || typeof msg.output !== 'object' || msg.output === null) continue;
      answered = true;
      clearTimeout(timer);
      const done = () => process.exit(0);
      socket.removeAllListeners('close');
      socket.removeAllListeners('error');
      socket.on('error', done);
      // The answer goes to Claude first; the acknowledgement (the agent records that the hook got
      // it) is best effort and never holds the exit for long.
      process.stdout.write(`${JSON.stringify(msg.output)}\n`, () => {
        setTimeout(done, 1000).unref();
        socket.end(`${JSON.stringify({ type: 'delivered', requestId: msg.requestId })}\n`, done);
      });
      return;
    }
  });
}

main().catch(giveUp);
