import type { Prisma } from '../generated/client.ts';
import type { SessionState } from '../../domain/index.ts';
import type { DbOrTx } from './sessions.ts';

export interface EvidenceDto {
  id: bigint;
  event: string;
  actor: string;
  fromState: SessionState | null;
  toState: SessionState | null;
  evidence: unknown;
  createdAt: Date;
}

/** One inspectable row per transition (and per refused fact): what happened and what the node physically showed. */
export async function recordEvidence(
  db: DbOrTx,
  e: {
    sessionId: string;
    event: string;
    actor: 'agent' | 'hub' | 'user' | 'timer';
    from: SessionState | null;
    to: SessionState | null;
    evidence: Record<string, unknown> | null;
    at: Date;
  },
): Promise<void> {
  await db.sessionEvidence.create({
    data: {
      sessionId: e.sessionId,
      event: e.event,
      actor: e.actor,
      fromState: e.from,
      toState: e.to,
      evidence: (e.evidence ?? undefined) as Prisma.InputJsonValue | undefined,
      createdAt: e.at,
    },
    select: { id: true },
  });
}

export async function listEvidence(db: DbOrTx, sessionId: string): Promise<EvidenceDto[]> {
  return db.sessionEvidence.findMany({
    where: { sessionId },
    orderBy: { id: 'asc' },
    select: { id: true, event: true, actor: true, fromState: true, toState: true, evidence: true, createdAt: true },
  });
}
