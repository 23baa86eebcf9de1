import type { ReactNode } from 'react';
import { requireSession } from '../../server/session.ts';

/** Everything in this group needs a signed-in browser. */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  await requireSession();
  return children;
}
