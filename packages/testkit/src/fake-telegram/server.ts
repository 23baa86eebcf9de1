import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApiError } from './api-error.ts';
import { canonicalMethod } from './bot-api-methods.ts';
import type { FakeContext, Handler } from './context.ts';
import { type Fault, type FaultPlan, faultBody, faultHtml } from './faults.ts';
import type { FloodControl } from './flood-control.ts';
import { readApiRequest } from './http/request-body.ts';
import type { UploadedFile } from './http/multipart.ts';
import type { CallRecord, Recorder } from './recorder.ts';

export interface ServerDeps {
  token: string;
  ctx: FakeContext;
  handlers: Record<string, Handler>;
  recorder: Recorder;
  faults: FaultPlan;
  flood: FloodControl;
  latencyMs: () => number;
}

const NOT_FOUND = { ok: false, error_code: 404, description: 'Not Found' };
const UNAUTHORIZED = { ok: false, error_code: 401, description: 'Unauthorized' };

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A malformed %-escape must not throw inside the request listener. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Resolves after ms, or early when the client has gone. */
const pause = (ms: number, gone: Promise<void>): Promise<void> =>
  ms <= 0
    ? Promise.resolve()
    : new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        void gone.then(() => {
          clearTimeout(timer);
          resolve();
        });
      });

const describeFiles = (files: UploadedFile[]): Record<string, unknown> =>
  Object.fromEntries(files.map((f) => [f.field, { fileName: f.fileName, size: f.bytes.length }]));

/** Form and query bodies carry objects as JSON text; records show them parsed so tests read one shape. */
function readable(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === 'string' && /^\s*[[{]/.test(value)) {
      try {
        out[key] = JSON.parse(value);
        continue;
      } catch {
        // Not JSON after all: keep the text as sent.
      }
    }
    out[key] = value;
  }
  return out;
}

export function createFakeServer(deps: ServerDeps): Server {
  const handlers = new Map(Object.entries(deps.handlers).map(([k, v]) => [k.toLowerCase(), v]));
  const now = (): number => deps.ctx.clock();

  async function applyFault(fault: Fault, res: ServerResponse, record: CallRecord, gone: Promise<void>): Promise<boolean> {
    record.fault = fault;
    if ('holdUntil' in fault) {
      await Promise.race([fault.holdUntil.catch(() => undefined), gone]);
      if (!res.destroyed) return false;
      deps.recorder.finish(record, 'client-gone', now());
      return true;
    }
    if ('timeoutMs' in fault) {
      await pause(fault.timeoutMs, gone);
      res.destroy();
      deps.recorder.finish(record, 'timeout', now());
      return true;
    }
    if ('drop' in fault) {
      if (fault.afterExecute) return false;
      res.destroy();
      deps.recorder.finish(record, 'dropped', now());
      return true;
    }
    if ('html' in fault && fault.html) {
      const page = faultHtml(fault.code);
      res.writeHead(fault.code, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(page) });
      res.end(page);
      deps.recorder.finish(record, 'answered', now(), fault.code, page);
      return true;
    }
    const body = faultBody(fault);
    sendJson(res, fault.code, body);
    deps.recorder.finish(record, 'answered', now(), fault.code, body);
    return true;
  }

  async function serveFile(path: string, res: ServerResponse, gone: Promise<void>): Promise<void> {
    const record = deps.recorder.start('file', now());
    record.params = { file_path: path };
    await pause(deps.latencyMs(), gone);
    const fault = deps.faults.take('file');
    if (fault && (await applyFault(fault, res, record, gone))) return;
    const file = deps.ctx.files.byFilePath(path);
    if (!file) {
      sendJson(res, 404, NOT_FOUND);
      deps.recorder.finish(record, 'answered', now(), 404, NOT_FOUND);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.bytes.length });
    res.end(file.bytes);
    deps.recorder.finish(record, 'answered', now(), 200, { bytes: file.bytes.length });
  }

  async function serveMethod(req: IncomingMessage, res: ServerResponse, url: URL, name: string, gone: Promise<void>): Promise<void> {
    const method = canonicalMethod(name);
    if (!method) return sendJson(res, 404, NOT_FOUND);
    const record = deps.recorder.start(method, now());
    let answer = (status: number, body: unknown): void => {
      const goneAlready = res.destroyed;
      sendJson(res, status, body);
      deps.recorder.finish(record, goneAlready ? 'client-gone' : 'answered', now(), status, body);
    };
    try {
      const request = await readApiRequest(req, url);
      record.params = { ...readable(request.params), ...describeFiles(request.files) };
      await pause(deps.latencyMs(), gone);
      const fault = deps.faults.take(method);
      if (fault && (await applyFault(fault, res, record, gone))) return;
      const handler = handlers.get(method.toLowerCase());
      if (!handler) {
        return answer(501, { ok: false, error_code: 501, description: `Not Implemented: the fake Bot API does not simulate ${method}` });
      }
      // With drop.afterExecute the method runs and whatever it answers, success or error, is lost.
      if (fault && 'drop' in fault)
        answer = (): void => {
          res.destroy();
          deps.recorder.finish(record, 'dropped', now());
        };
      deps.flood.check(method, request.params.chat_id, now());
      const result = await handler({ ...request, gone }, deps.ctx);
      answer(200, { ok: true, result });
    } catch (error) {
      if (error instanceof ApiError) return answer(error.code, error.toBody());
      answer(500, { ok: false, error_code: 500, description: 'Internal Server Error' });
      throw error;
    }
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const gone = new Promise<void>((resolve) => res.once('close', () => resolve()));
    const api = /^\/bot([^/]*)\/([^/]+)\/?$/.exec(url.pathname);
    const file = /^\/file\/bot([^/]*)\/(.+)$/.exec(url.pathname);
    if (!api && !file) return sendJson(res, 404, NOT_FOUND);
    const token = safeDecode(api?.[1] ?? file?.[1] ?? '');
    if (token !== deps.token) return sendJson(res, 401, UNAUTHORIZED);
    const work = api ? serveMethod(req, res, url, api[2] as string, gone) : serveFile(safeDecode(file?.[2] ?? ''), res, gone);
    work.catch((error: unknown) => {
      // A bug in the fake must be loud in the test output, not a hung request.
      console.error('fake-telegram: handler crashed', error);
      if (!res.headersSent) sendJson(res, 500, { ok: false, error_code: 500, description: 'Internal Server Error' });
    });
  });
  // Clients keep connections alive between polls; a short server timeout would race their reuse.
  server.keepAliveTimeout = 60_000;
  return server;
}
