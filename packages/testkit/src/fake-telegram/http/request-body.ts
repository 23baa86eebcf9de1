import type { IncomingMessage } from 'node:http';
import { ApiError } from '../api-error.ts';
import { parseMultipart, type UploadedFile } from './multipart.ts';

export type Params = Record<string, unknown>;

export interface ApiRequest {
  params: Params;
  files: UploadedFile[];
}

const MAX_BODY = 50 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ApiError(413, 'Request Entity Too Large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Query string and body merge like on the real server; the body wins on a clash. */
export async function readApiRequest(req: IncomingMessage, url: URL): Promise<ApiRequest> {
  const params: Params = Object.fromEntries(url.searchParams);
  const body = await readBody(req);
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (body.length === 0) return { params, files: [] };
  if (type.startsWith('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw ApiError.badRequest("can't parse JSON object");
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw ApiError.badRequest("can't parse JSON object");
    }
    return { params: { ...params, ...(parsed as Params) }, files: [] };
  }
  if (type.startsWith('application/x-www-form-urlencoded')) {
    return { params: { ...params, ...Object.fromEntries(new URLSearchParams(body.toString('utf8'))) }, files: [] };
  }
  if (type.startsWith('multipart/form-data')) {
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(req.headers['content-type'] ?? '');
    const value = boundary?.[1] ?? boundary?.[2];
    if (!value) throw ApiError.badRequest('wrong multipart/form-data request');
    const form = parseMultipart(body, value.trim());
    return { params: { ...params, ...form.fields }, files: form.files };
  }
  return { params, files: [] };
}
