import { NodeSessions } from '../../../../components/node-sessions.tsx';
import { requireSession } from '../../../../server/session.ts';

export const dynamic = 'force-dynamic';

export default async function NodePage({ params }: { params: Promise<{ nodeId: string }> }) {
  await requireSession();
  const { nodeId } = await params;
  return <NodeSessions nodeId={nodeId} />;
}
