import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseMultipart } from '../fake-telegram/http/multipart.ts';

/** What one request to the fake carried, as a test reads it back. */
export interface TranscribeRequest {
  id: number;
  method: string;
  path: string;
  /** The bearer token sent, or null. */
  apiKey: string | null;
  fileName: string | null;
  mime: string | null;
  size: number | null;
  sha256: string | null;
  model: string | null;
  language: string | null;
  responseFormat: string | null;
  status: number;
  /** The client went away before an answer (a hang it gave up on). */
  clientClosed: boolean;
}

export type TranscribeBehaviour = { type: 'text'; text: string } | { type: 'fail'; status: 401 | 413 | 429 | 500 | 503; message?: string } | { type: 'hang' };

export interface FakeTranscribe {
  /** The base URL to configure (BRIA_TRANSCRIBE_URL): `http://127.0.0.1:<port>/v1`. */
  url: string;
  requests(): TranscribeRequest[];
  /** What every following request gets, until told otherwise. */
  behave(b: TranscribeBehaviour): void;
  waitForRequests(n: number, timeoutMs?: number): Promise<TranscribeRequest[]>;
  close(): Promise<void>;
}

export interface FakeTranscribeOptions {
  /** The key requests must carry (Bearer); absent: any or none, as a local server. */
  apiKey?: string;
  models?: string[];
  behaviour?: TranscribeBehaviour;
}

// OpenAI's upload limit; its proxy answers 413 before the API looks at the form.
const MAX_BYTES = 25 * 1024 * 1024;
const FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt'];

const errorBody = (message: string, type: string, code: string | null) => JSON.stringify({ error: { message, type, param: null, code } });

const FAILURES: Record<401 | 413 | 429 | 500 | 503, { message: string; type: string; code: string | null }> = {
  401: { message: 'Incorrect API key provided. You can find your API key at your account page.', type: 'invalid_request_error', code: 'invalid_api_key' },
  413: { message: 'Maximum content size limit (26214400) exceeded.', type: 'invalid_request_error', code: null },
  429: { message: 'Rate limit reached for requests. Please try again in 20s.', type: 'requests', code: 'rate_limit_exceeded' },
  500: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', code: null },
  503: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', code: null },
};

/**
 * A local stand-in for OpenAI's `POST /v1/audio/transcriptions` (and the servers that copy it:
 * whisper.cpp, speaches): real multipart parsing, the same checks (key, file, model,
 * response_format, 25 MB) and the same error shape `{ error: { message, type, code } }`. Every
 * request is logged with the file's name, type, size and SHA-256, and the form's fields.
 */
export async function startFakeTranscribe(o: FakeTranscribeOptions = {}): Promise<FakeTranscribe> {
  const models = new Set(o.models ?? ['whisper-1', 'gpt-4o-mini-transcribe', 'gpt-4o-transcribe']);
  let behaviour: TranscribeBehaviour = o.behaviour ?? { type: 'text', text: 'Hello from the fake transcriber.' };
  const log: TranscribeRequest[] = [];
  const waiters = new Set<() => void>();
  const open = new Set<ServerResponse>();
  let seq = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const entry: TranscribeRequest = {
      id: ++seq,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      apiKey: /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? null,
      fileName: null,
      mime: null,
      size: null,
      sha256: null,
      model: null,
      language: null,
      responseFormat: null,
      status: 0,
      clientClosed: false,
    };
    log.push(entry);
    const send = (status: number, body: string, type = 'application/json') => {
      entry.status = status;
      if (!res.writableEnded && !res.destroyed) res.writeHead(status, { 'content-type': type }).end(body);
      for (const w of waiters) w();
    };
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BYTES + 64 * 1024) {
      req.resume();
      return send(413, errorBody(FAILURES[413].message, FAILURES[413].type, null));
    }
    const body = await readBody(req);
    if (entry.method !== 'POST' || new URL(entry.path, 'http://fake').pathname !== '/v1/audio/transcriptions') {
      return send(404, errorBody(`Invalid URL (${entry.method} ${entry.path})`, 'invalid_request_error', null));
    }
    if (o.apiKey !== undefined && entry.apiKey !== o.apiKey) {
      const message = entry.apiKey === null ? "You didn't provide an API key." : FAILURES[401].message;
      return send(401, errorBody(message, 'invalid_request_error', entry.apiKey === null ? null : 'invalid_api_key'));
    }
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(req.headers['content-type'] ?? '');
    if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '') || !boundary) {
      return send(400, errorBody('Invalid Content-Type header, expected multipart/form-data.', 'invalid_request_error', null));
    }
    const form = parseMultipart(body, (boundary[1] ?? boundary[2] ?? '').trim());
    const file = form.files.find((f) => f.field === 'file');
    entry.model = form.fields.model ?? null;
    entry.language = form.fields.language ?? null;
    entry.responseFormat = form.fields.response_format ?? null;
    if (file) {
      entry.fileName = file.fileName;
      entry.mime = file.contentType;
      entry.size = file.bytes.length;
      entry.sha256 = createHash('sha256').update(file.bytes).digest('hex');
    }
    if (!file) return send(400, errorBody("you must provide a 'file'", 'invalid_request_error', null));
    if (!entry.model) return send(400, errorBody("you must provide a 'model'", 'invalid_request_error', null));
    if (!models.has(entry.model)) return send(400, errorBody(`The model '${entry.model}' does not exist`, 'invalid_request_error', 'model_not_found'));
    if (entry.responseFormat && !FORMATS.includes(entry.responseFormat)) {
      return send(400, errorBody(`'${entry.responseFormat}' is not one of ${JSON.stringify(FORMATS)} - 'response_format'`, 'invalid_request_error', null));
    }
    if (file.bytes.length > MAX_BYTES) return send(413, errorBody(FAILURES[413].message, FAILURES[413].type, null));
    const b = behaviour;
    if (b.type === 'hang') {
      await new Promise<void>((resolve) => res.on('close', resolve));
      entry.clientClosed = true;
      for (const w of waiters) w();
      return;
    }
    if (b.type === 'fail') {
      const f = FAILURES[b.status];
      return send(b.status, errorBody(b.message ?? f.message, f.type, f.code));
    }
    if (entry.responseFormat === 'text') return send(200, `${b.text}\n`, 'text/plain; charset=utf-8');
    if (entry.responseFormat === 'verbose_json')
      return send(200, JSON.stringify({ task: 'transcribe', language: entry.language ?? 'english', duration: 1, text: b.text, segments: [] }));
    return send(200, JSON.stringify({ text: b.text }));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => log.map((e) => ({ ...e })),
    behave(b) {
      behaviour = b;
    },
    waitForRequests(n, timeoutMs = 10_000) {
      const done = () => log.filter((e) => e.status !== 0 || e.clientClosed).length >= n;
      if (done()) return Promise.resolve(log.map((e) => ({ ...e })));
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!done()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(log.map((e) => ({ ...e })));
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake-transcribe: ${log.length} request(s), wanted ${n} answered within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    async close() {
      for (const res of open) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}
