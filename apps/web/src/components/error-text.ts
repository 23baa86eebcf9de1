import { TRPCClientError } from '@trpc/client';
import { isMessageKey, type Translate } from '../i18n/catalog.ts';

const KEY_LIKE = /^[a-z_]+(\.[a-z_]+)+$/i;

type ErrorData = { code?: string; appCode?: string | null; userMessage?: string | null } | undefined;

/**
 * The text a failed call shows. A service's own words come first: a catalog key is translated, a
 * sentence (e.g. the node's "The folder does not exist on this computer.") is shown as it came,
 * because it says exactly why; only then the text for the domain code, then a generic one.
 */
export function errorText(err: unknown, t: Translate): string {
  if (!(err instanceof TRPCClientError)) return t('error.generic');
  const data = err.data as ErrorData;
  if (data?.code === 'UNAUTHORIZED') return t('error.auth');
  if (data?.code === 'FORBIDDEN' && err.message === 'auth.csrf') return t('error.csrf');
  if (isMessageKey(err.message)) return t(err.message);
  const said = data?.userMessage?.trim();
  if (said && isMessageKey(said)) return t(said);
  // A key this catalog lacks (`sessions.…`) is not for people; a sentence is.
  if (said && !KEY_LIKE.test(said)) return said;
  const byCode = data?.appCode ? `refusal.${data.appCode}` : null;
  if (byCode && isMessageKey(byCode)) return t(byCode);
  if (data?.code === 'BAD_REQUEST') return t('refusal.INVALID_INPUT');
  return t('error.generic');
}
