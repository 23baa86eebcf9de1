import { Dashboard } from '../../components/dashboard.tsx';
import { requireSession } from '../../server/session.ts';

export const dynamic = 'force-dynamic';

export default async function HomePage() {
  // Checked here too: a layout does not re-run on every client navigation.
  await requireSession();
  return <Dashboard />;
}
