'use client';
import { TRPCClientError } from '@trpc/client';
import { errorText } from './error-text.ts';
import { useI18n } from './i18n-context.tsx';

/**
 * A person-readable text for a failed call (see `errorText`): refusals say why (the service's own
 * sentence, or the domain code's text), never just "error". A lost session sends the visitor to
 * sign in.
 */
export function useErrorText(): (err: unknown) => string {
  const { t } = useI18n();
  return (err) => {
    if (err instanceof TRPCClientError && (err.data as { code?: string } | undefined)?.code === 'UNAUTHORIZED') window.location.assign('/signin');
    return errorText(err, t);
  };
}
