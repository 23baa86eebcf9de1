import { NewSession } from '../../../../../components/new-session.tsx';
import { requireSession } from '../../../../../server/session.ts';

export const dynamic = 'force-dynamic';

export default async function NewSessionPage({ params }: { params: Promise<{ nodeId: string }> }) {
  await requireSession();
  const { nodeId } = await params;
  return <NewSession nodeId={nodeId} />;
}
