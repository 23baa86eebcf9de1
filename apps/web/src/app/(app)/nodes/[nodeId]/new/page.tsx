import { NewSession } from '../../../../../components/new-session.tsx';
import { ComputerGate } from '../../../../../components/computer-gate.tsx';
import { requireSession } from '../../../../../server/session.ts';

export const dynamic = 'force-dynamic';

export default async function NewSessionPage({ params }: { params: Promise<{ nodeId: string }> }) {
  await requireSession();
  const { nodeId } = await params;
  return (
    <ComputerGate nodeId={nodeId}>
      <NewSession nodeId={nodeId} />
    </ComputerGate>
  );
}
