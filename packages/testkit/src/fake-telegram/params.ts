import { ApiError } from './api-error.ts';
import type { Params } from './http/request-body.ts';

// Form and query bodies carry every value as a string, JSON bodies may carry either; the real
// server accepts both, so every read goes through these helpers.

export function str(p: Params, key: string): string | undefined {
  const v = p[key];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

export function int(p: Params, key: string): number | undefined {
  const v = p[key];
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : undefined;
}

export function bool(p: Params, key: string): boolean {
  const v = p[key];
  return v === true || v === 'true' || v === '1' || v === 1;
}

/** A structured parameter sent either as an object or as a JSON string inside a form field. */
export function json<T>(p: Params, key: string, onError: string): T | undefined {
  const v = p[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') return v as T;
  try {
    return JSON.parse(v) as T;
  } catch {
    throw ApiError.badRequest(onError);
  }
}

export function requireChatId(p: Params): number {
  const raw = p.chat_id;
  if (raw === undefined || raw === null || raw === '') throw ApiError.badRequest('chat_id is empty');
  const id = int(p, 'chat_id');
  if (id === undefined) throw ApiError.badRequest('chat not found');
  return id;
}
