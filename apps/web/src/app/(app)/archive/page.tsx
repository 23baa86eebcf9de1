import { ArchiveList } from '../../../components/archive-list.tsx';
import { requireSession } from '../../../server/session.ts';

export const dynamic = 'force-dynamic';

export default async function ArchivePage() {
  await requireSession();
  return <ArchiveList heading="h1" />;
}
