/**
 * Faults the chaos suite injects. An error code answers like the real server (429 carries
 * retry_after); `timeoutMs` holds the request and then cuts the connection without an answer;
 * `drop` cuts it at once, before the method runs or, with `afterExecute`, after it ran — the
 * "sent but the answer was lost" case. `holdUntil` keeps the request waiting until the promise
 * settles and then serves it normally: a slow server whose end the test decides.
 */
export type Fault =
  | { code: 429; retryAfter?: number; description?: string }
  | { code: number; description?: string; html?: boolean; retryAfter?: number }
  | { timeoutMs: number }
  | { holdUntil: Promise<unknown> }
  | { drop: true; afterExecute?: boolean };

const DEFAULT_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function faultBody(fault: { code: number; description?: string; retryAfter?: number }): {
  ok: false;
  error_code: number;
  description: string;
  parameters?: { retry_after: number };
} {
  const retryAfter = fault.code === 429 ? (fault.retryAfter ?? 1) : fault.retryAfter;
  const base = DEFAULT_TEXT[fault.code] ?? 'Error';
  const description = fault.description ?? (fault.code === 429 ? `${base}: retry after ${retryAfter}` : base);
  const body = { ok: false as const, error_code: fault.code, description };
  return retryAfter !== undefined ? { ...body, parameters: { retry_after: retryAfter } } : body;
}

/** What the real front proxy sends on a 502/504: an HTML page, not JSON. */
export function faultHtml(code: number): string {
  const title = `${code} ${DEFAULT_TEXT[code] ?? 'Error'}`;
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

interface Planned {
  method: string;
  fault: Fault;
  remaining: number;
}

/** Faults waiting for the next calls of a method ('*' matches any), consumed in the order added. */
export class FaultPlan {
  private planned: Planned[] = [];

  add(method: string, fault: Fault, times: number): void {
    if (times > 0) this.planned.push({ method: method === '*' ? '*' : method.toLowerCase(), fault, remaining: times });
  }

  take(method: string): Fault | undefined {
    const key = method.toLowerCase();
    const entry = this.planned.find((p) => p.method === key || p.method === '*');
    if (!entry) return undefined;
    entry.remaining--;
    if (entry.remaining <= 0) this.planned = this.planned.filter((p) => p !== entry);
    return entry.fault;
  }

  clear(): void {
    this.planned = [];
  }
}
