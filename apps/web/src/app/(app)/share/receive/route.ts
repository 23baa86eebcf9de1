/**
 * The share target's action without the service worker (manifest.ts): the worker normally answers
 * this POST itself and keeps the shared files for /share. When it does not (not installed yet, or
 * the browser bypassed it), the text still reaches /share, and the page says how many files stayed
 * behind instead of dropping them silently. Nothing is stored here: /share asks before sending.
 */
export async function POST(req: Request): Promise<Response> {
  const q = new URLSearchParams();
  try {
    const form = await req.formData();
    for (const k of ['title', 'text', 'url']) {
      const v = form.get(k);
      if (typeof v === 'string' && v !== '') q.set(k, v.slice(0, 20_000));
    }
    const files = form.getAll('files').filter((f) => typeof f !== 'string' && f.size > 0).length;
    if (files > 0) q.set('dropped', String(files));
  } catch {
    q.set('error', 'unreadable');
  }
  return new Response(null, { status: 303, headers: { location: `/share?${q}` } });
}
