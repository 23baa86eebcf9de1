import { UsagePage } from '../../../components/usage/usage-page.tsx';
import { requireSession } from '../../../server/session.ts';

export const dynamic = 'force-dynamic';

export default async function Usage() {
  await requireSession();
  return <UsagePage />;
}
