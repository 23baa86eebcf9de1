import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { type Plan, type PlanOptions, planFor, totalDelay } from './plan.ts';
import { createRequestLog, safeHeaders } from './request-log.ts';
import type { MockImage, MockRequest, MockServer, MockServerOptions, MockToolResult, RequestKind } from './types.ts';

/** What an API module reads out of a request before it is logged. */
export interface Classified {
  kind: RequestKind;
  sessionId: string | null;
  userText: string | null;
  behaviourText?: string | null;
  toolResult?: MockToolResult | null;
  images?: MockImage[];
  turnText?: string | null;
  turnToolResults?: number;
  messageCount: number | null;
  model: string | null;
  stream: boolean | null;
}

/** One request/response pair as seen by an API module. */
export interface Exchange {
  entry: MockRequest;
  method: string;
  pathname: string;
  body: unknown;
  bodyChars: number;
  sendJson(status: number, payload: unknown, headers?: Record<string, string>): void;
  /** Sends status 200 and event-stream headers and flushes them at once. */
  startSse(headers?: Record<string, string>): void;
  sse(event: string, data: unknown): void;
  end(): void;
  /** Resolves true after `ms`, or false as soon as the response is over (client gone, server closing). */
  sleep(ms: number): Promise<boolean>;
  /** Resolves when the client goes away or the server closes. */
  untilClosed(): Promise<void>;
}

type TextPlan = Extract<Plan, { type: 'text' }>;

/**
 * How both mock APIs carry out a plan: `fail` is answered with the API's own error body, `hang`
 * holds the request (after the stream's headers when it streams), a streamed reply goes to
 * `stream`, and a plain one waits out the plan's delays (or stalls) before `reply` answers it.
 */
export async function answerPlan(
  x: Exchange,
  plan: Plan,
  api: { fail(status: 400 | 500): void; limit(resetsAt: number): void; stream(plan: TextPlan): Promise<void>; reply(plan: TextPlan): void },
): Promise<void> {
  if (plan.type === 'fail') return api.fail(plan.status);
  if (plan.type === 'limit') return api.limit(plan.resetsAt);
  if (plan.type === 'hang') {
    if (x.entry.stream) x.startSse();
    return x.untilClosed();
  }
  if (x.entry.stream) return api.stream(plan);
  if (plan.stall || !(await x.sleep(totalDelay(plan.steps)))) return x.untilClosed();
  api.reply(plan);
}

export interface MockApi {
  classify(method: string, pathname: string, headers: IncomingHttpHeaders, body: unknown): Classified;
  /** Whether TWOBLOCKS gives two content blocks (the Responses mock answers it as a plain reply). */
  twoBlocks: boolean;
  /** The tool words answered with a tool call, and the call id prefix (null: none, plain replies). */
  tools: PlanOptions['tools'];
  /** `plan` is set for turn and title requests. */
  respond(x: Exchange, plan: Plan | null): Promise<void> | void;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
    req.on('close', () => (req.complete ? undefined : reject(new Error('request aborted'))));
  });
}

function decode(raw: Buffer, encoding: string | undefined): Buffer {
  switch (encoding) {
    case 'gzip':
      return gunzipSync(raw);
    case 'deflate':
      return inflateSync(raw);
    case 'br':
      return brotliDecompressSync(raw);
    default:
      return raw;
  }
}

function parseJson(text: string): unknown {
  if (text.length === 0) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function startMockServer(api: MockApi, opts: MockServerOptions = {}): Promise<MockServer> {
  const log = createRequestLog(opts.logFile);
  const slowChunks = opts.slowChunks ?? 40;
  const slowChunkMs = opts.slowChunkMs ?? 1000;
  let seq = 0;
  let closing = false;
  const openResponses = new Set<Promise<void>>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = decode(await readBody(req), req.headers['content-encoding']);
    const text = raw.toString('utf8');
    const body = parseJson(text);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const pathname = new URL(path, 'http://mock').pathname;
    const entry: MockRequest = {
      id: ++seq,
      time: new Date().toISOString(),
      method,
      path,
      ...api.classify(method, pathname, req.headers, body),
      behaviour: null,
      reply: null,
      status: 0,
      headers: safeHeaders(req.headers),
      done: false,
      clientClosed: false,
      durationMs: null,
      ...(opts.keepBodies ? { body } : {}),
    };
    const over = new AbortController();
    const closed = new Promise<void>((resolve) =>
      res.on('close', () => {
        over.abort();
        log.finish(entry, !res.writableFinished && !closing);
        openResponses.delete(closed);
        resolve();
      }),
    );
    openResponses.add(closed);
    const modelCall = entry.kind === 'turn' || entry.kind === 'title';
    const plan = modelCall ? planFor(entry, { allowTwoBlocks: api.twoBlocks, tools: api.tools, slowChunks, slowChunkMs }) : null;
    log.add(entry);

    const writeHead = (status: number, headers: Record<string, string>) => {
      entry.status = status;
      res.writeHead(status, { 'request-id': `req_mock_${entry.id}`, 'x-request-id': `req_mock_${entry.id}`, ...headers });
    };
    const x: Exchange = {
      entry,
      method,
      pathname,
      body,
      bodyChars: text.length,
      sendJson(status, payload, headers = {}) {
        writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(method === 'HEAD' ? undefined : JSON.stringify(payload));
      },
      startSse(headers = {}) {
        writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
          ...headers,
        });
        res.flushHeaders();
      },
      sse(event, data) {
        if (!res.writableEnded && !res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      },
      end() {
        if (!res.writableEnded) res.end();
      },
      sleep(ms) {
        if (over.signal.aborted) return Promise.resolve(false);
        return new Promise((resolve) => {
          const timer = setTimeout(() => {
            over.signal.removeEventListener('abort', onAbort);
            resolve(true);
          }, ms);
          const onAbort = () => {
            clearTimeout(timer);
            resolve(false);
          };
          over.signal.addEventListener('abort', onAbort, { once: true });
        });
      },
      untilClosed() {
        if (over.signal.aborted) return Promise.resolve();
        return new Promise((resolve) => over.signal.addEventListener('abort', () => resolve(), { once: true }));
      },
    };
    await api.respond(x, plan);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // A broken request (aborted upload, bad encoding) must not take the mock down.
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"mock internal error"}}');
      } else res.destroy();
    });
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
        port,
        requests: log.entries,
        userTexts: (sessionId) => log.userTexts(sessionId),
        waitForRequest: (predicate, timeoutMs = 10_000) => log.waitFor(predicate, timeoutMs),
        async close() {
          closing = true;
          const stopped = new Promise<void>((done) => server.close(() => done()));
          server.closeAllConnections();
          await Promise.all([stopped, ...openResponses]);
        },
      });
    });
  });
}
