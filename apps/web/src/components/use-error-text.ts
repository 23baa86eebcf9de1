'use client';
import { TRPCClientError } from '@trpc/client';
import { isMessageKey } from '../i18n/catalog.ts';
import { useI18n } from './i18n-context.tsx';

/** A person-readable text for a failed call; a lost session sends the visitor to sign in. */
export function useErrorText(): (err: unknown) => string {
  const { t } = useI18n();
  return (err) => {
    if (err instanceof TRPCClientError) {
      const code = (err.data as { code?: string } | undefined)?.code;
      if (code === 'UNAUTHORIZED') {
        window.location.assign('/signin');
        return t('error.auth');
      }
      if (code === 'FORBIDDEN' && err.message === 'auth.csrf') return t('error.csrf');
      if (isMessageKey(err.message)) return t(err.message);
    }
    return t('error.generic');
  };
}
