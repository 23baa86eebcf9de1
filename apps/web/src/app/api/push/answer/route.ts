import { answerFromNotification } from '@bria/core/services';
import { z } from 'zod';
import { db, log } from '../../../../server/db.ts';

export const dynamic = 'force-dynamic';

const zBody = z.object({ token: z.string().max(64), decision: z.enum(['allow', 'deny']) });
const MAX_BODY = 1024;

/**
 * Allow / Deny from a permission request's notification (issue 32), posted by the service worker
 * (`public/sw.js`). No cookie or CSRF header: the single-use token in the body is the whole
 * credential (services/push/push-answer.ts), so a page elsewhere gains nothing by posting here and
 * a replay answers "already answered". Always JSON, never a redirect.
 */
export async function POST(req: Request): Promise<Response> {
  const text = await req.text();
  if (text.length > MAX_BODY) return Response.json({ status: 'invalid', error: 'body too large' }, { status: 413 });
  let body: z.infer<typeof zBody>;
  try {
    body = zBody.parse(JSON.parse(text));
  } catch {
    return Response.json({ status: 'invalid', error: 'expected {"token": "...", "decision": "allow" | "deny"}' }, { status: 400 });
  }
  const r = await answerFromNotification({ db: db(), log: log() }, body);
  log().info({ status: r.status, decision: body.decision, sessionId: r.sessionId }, 'web.push_answer');
  const url = r.sessionId ? `/sessions/${r.sessionId}` : '/';
  return Response.json({ ...r, url }, { status: r.status === 'unknown' ? 404 : r.status === 'expired' ? 410 : 200, headers: { 'cache-control': 'no-store' } });
}
