import { SessionPage } from '../../../../components/session-page.tsx';
import { requireSession } from '../../../../server/session.ts';

export const dynamic = 'force-dynamic';

export default async function OneSessionPage({ params }: { params: Promise<{ sessionId: string }> }) {
  await requireSession();
  const { sessionId } = await params;
  return <SessionPage sessionId={sessionId} />;
}
