import { NodeSessions } from '../../../../components/node-sessions.tsx';
import { ComputerGate } from '../../../../components/computer-gate.tsx';
import { requireSession } from '../../../../server/session.ts';

export const dynamic = 'force-dynamic';

export default async function NodePage({ params }: { params: Promise<{ nodeId: string }> }) {
  await requireSession();
  const { nodeId } = await params;
  return (
    <ComputerGate nodeId={nodeId}>
      <NodeSessions nodeId={nodeId} />
    </ComputerGate>
  );
}
