export interface UploadedFile {
  field: string;
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

export interface ParsedForm {
  fields: Record<string, string>;
  files: UploadedFile[];
}

// Headers are matched loosely because some clients write `content-disposition:form-data;name=x`
// with no spaces and an unquoted filename.
function param(header: string, name: string): string | undefined {
  const quoted = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*"((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(header);
  if (quoted) return quoted[1]?.replace(/\\(.)/g, '$1');
  const bare = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*([^;]*)`, 'i').exec(header);
  return bare?.[1]?.trim();
}

export function parseMultipart(body: Buffer, boundary: string): ParsedForm {
  const form: ParsedForm = { fields: {}, files: [] };
  const delimiter = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delimiter);
  while (pos !== -1) {
    let start = pos + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    if (body[start] === 0x0d && body[start + 1] === 0x0a) start += 2;
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    // The CRLF before the next delimiter belongs to the delimiter, not to the content.
    let end = next;
    if (body[end - 2] === 0x0d && body[end - 1] === 0x0a) end -= 2;
    const part = body.subarray(start, end);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd !== -1) addPart(form, part.subarray(0, headerEnd).toString('utf8'), part.subarray(headerEnd + 4));
    pos = next;
  }
  return form;
}

function addPart(form: ParsedForm, rawHeaders: string, content: Buffer): void {
  const headers = new Map<string, string>();
  for (const line of rawHeaders.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition') ?? '';
  const field = param(disposition, 'name');
  if (!field) return;
  const fileName = param(disposition, 'filename');
  if (fileName === undefined) {
    form.fields[field] = content.toString('utf8');
    return;
  }
  form.files.push({
    field,
    fileName,
    contentType: headers.get('content-type') ?? 'application/octet-stream',
    bytes: Buffer.from(content),
  });
}
