'use client';
import { TRPCClientError } from '@trpc/client';
import { isMessageKey } from '../i18n/catalog.ts';
import { useI18n } from './i18n-context.tsx';

/**
 * A person-readable text for a failed call. Refusals of the session rules arrive with the domain
 * code (`appCode`), so the page says why (e.g. the session changed meanwhile) rather than "error".
 * A lost session sends the visitor to sign in.
 */
export function useErrorText(): (err: unknown) => string {
  const { t } = useI18n();
  return (err) => {
    if (err instanceof TRPCClientError) {
      const data = err.data as { code?: string; appCode?: string | null } | undefined;
      if (data?.code === 'UNAUTHORIZED') {
        window.location.assign('/signin');
        return t('error.auth');
      }
      if (data?.code === 'FORBIDDEN' && err.message === 'auth.csrf') return t('error.csrf');
      // A service's own sentence (a catalog key) is more precise than the text for its code.
      if (isMessageKey(err.message)) return t(err.message);
      const byCode = data?.appCode ? `refusal.${data.appCode}` : null;
      if (byCode && isMessageKey(byCode)) return t(byCode);
      if (data?.code === 'BAD_REQUEST') return t('refusal.INVALID_INPUT');
    }
    return t('error.generic');
  };
}
