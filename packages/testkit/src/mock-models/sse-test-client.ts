// Test helper: reads a raw event stream the way an API client would, keeping arrival times.

export interface SseEvent {
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests poke into arbitrary event payloads
  data: any;
  /** ms since the reader started */
  at: number;
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });
}

/** Parses complete `event:`/`data:` frames; returns them and the unparsed rest. */
export function parseFrames(buffer: string): { frames: Array<{ event: string; data: string }>; rest: string } {
  const frames: Array<{ event: string; data: string }> = [];
  const parts = buffer.split('\n\n');
  const rest = parts.pop() ?? '';
  for (const part of parts) {
    let event = 'message';
    const data: string[] = [];
    for (const line of part.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    frames.push({ event, data: data.join('\n') });
  }
  return { frames, rest };
}

/**
 * Reads events until the stream ends, `stopAfter` returns true, or `idleMs` pass without a byte
 * (then `idled` is true and the stream is still open: abort the request to let it go).
 */
export async function readEvents(
  res: Response,
  opts: { stopAfter?: (e: SseEvent) => boolean; idleMs?: number } = {},
): Promise<{ events: SseEvent[]; raw: string; ended: boolean; idled: boolean }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const started = Date.now();
  const events: SseEvent[] = [];
  let raw = '';
  let buffer = '';
  for (;;) {
    const next = reader.read();
    // An abandoned read fails once the caller aborts the request; that is expected.
    next.catch(() => undefined);
    const timeout = opts.idleMs === undefined ? null : new Promise<'idle'>((resolve) => setTimeout(() => resolve('idle'), opts.idleMs));
    const got = await (timeout ? Promise.race([next, timeout]) : next);
    if (got === 'idle') {
      return { events, raw, ended: false, idled: true };
    }
    if (got.done) return { events, raw, ended: true, idled: false };
    const text = decoder.decode(got.value, { stream: true });
    raw += text;
    const parsed = parseFrames(buffer + text);
    buffer = parsed.rest;
    for (const f of parsed.frames) {
      const e: SseEvent = { event: f.event, data: JSON.parse(f.data), at: Date.now() - started };
      events.push(e);
      if (opts.stopAfter?.(e)) return { events, raw, ended: false, idled: false };
    }
  }
}
