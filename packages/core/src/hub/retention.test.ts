import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { markCommandsSent, unackedCommands } from '../db/repos/agent-commands.ts';
import { storeAgentEvent } from '../db/repos/agent-events.ts';
import { createNodeWithToken } from '../db/repos/nodes.ts';
import { sweepRetention } from './retention.ts';
import { fileDatabase } from '../../../testkit/src/file-database.ts';

// Real Postgres: rows of every kind and age; the sweep deletes exactly the ones nothing needs.
const { db } = await fileDatabase();

const DAY = 24 * 3600_000;
const NOW = new Date('2026-06-01T12:00:00Z');
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);

describe('retention sweep', () => {
  it('deletes old answered commands, old processed events and old sent outbox rows, and nothing else', async () => {
    const { nodeId } = await createNodeWithToken(db, { name: 'retention' });
    const sessionId = randomUUID();
    await db.session.create({ data: { id: sessionId, nodeId, executor: 'claude', folder: '/w', state: 'Ready', nativeSessionId: randomUUID() } });
    let seq = 0;
    const cmd = async (label: string, status: 'pending' | 'sent' | 'acked' | 'done' | 'failed', ageDays: number) => {
      const id = randomUUID();
      await db.agentCommand.create({ data: { id, nodeId, sessionId, type: 'probe', payload: { label }, status, createdAt: ago(ageDays) } });
      return id;
    };
    const event = async (o: { type?: string; commandId?: string; processedDaysAgo: number | null; receivedDaysAgo?: number }) => {
      const row = await db.agentEvent.create({
        data: {
          nodeId,
          seq: BigInt(++seq),
          type: o.type ?? 'usage',
          sessionId,
          commandId: o.commandId ?? null,
          payload: {},
          receivedAt: ago(o.receivedDaysAgo ?? o.processedDaysAgo ?? 0),
          processedAt: o.processedDaysAgo === null ? null : ago(o.processedDaysAgo),
        },
      });
      return row.id;
    };

    // Commands.
    const keepCmd: Record<string, string> = {};
    const goneCmd: Record<string, string> = {};
    keepCmd.pendingOld = await cmd('pending old', 'pending', 90);
    keepCmd.sentOld = await cmd('sent old', 'sent', 90);
    keepCmd.ackedOldNoAnswer = await cmd('acked old, never answered', 'acked', 90);
    keepCmd.ackedOldAnswerUnprocessed = await cmd('acked old, answer not processed yet', 'acked', 90);
    await event({ type: 'command_result', commandId: keepCmd.ackedOldAnswerUnprocessed, processedDaysAgo: null, receivedDaysAgo: 1 });
    keepCmd.ackedRecent = await cmd('acked recent, answered', 'acked', 5);
    const recentAnswer = await event({ type: 'command_result', commandId: keepCmd.ackedRecent, processedDaysAgo: 5 });
    keepCmd.doneRecent = await cmd('done recent', 'done', 29);
    goneCmd.ackedOldAnswered = await cmd('acked old, answered', 'acked', 60);
    const oldAnswer = await event({ type: 'command_result', commandId: goneCmd.ackedOldAnswered, processedDaysAgo: 60 });
    goneCmd.doneOld = await cmd('done old', 'done', 31);
    goneCmd.failedOld = await cmd('failed old', 'failed', 45);

    // Events.
    const keepEv: Record<string, bigint> = {};
    const goneEv: Record<string, bigint> = {};
    keepEv.unprocessedOld = await event({ processedDaysAgo: null, receivedDaysAgo: 90 });
    keepEv.processedRecent = await event({ processedDaysAgo: 10 });
    keepEv.pendingFinal = await event({ type: 'turn_final', processedDaysAgo: 50 });
    keepEv.deferred = await event({ type: 'turn_completed', processedDaysAgo: 50 });
    await db.session.update({ where: { id: sessionId }, data: { pendingFinalEventId: keepEv.pendingFinal, deferredEventIds: [keepEv.deferred] } });
    // The answer of a command that stays (never answered ones aside) stays with it.
    keepEv.answerOfKeptCommand = await event({ type: 'command_result', commandId: keepCmd.doneRecent, processedDaysAgo: 40 });
    keepEv.recentAnswer = recentAnswer;
    goneEv.processedOld = await event({ processedDaysAgo: 31 });
    goneEv.processedVeryOld = await event({ type: 'turn_final', processedDaysAgo: 200 });
    goneEv.answerOfGoneCommand = oldAnswer;
    goneEv.answerOfUnknownCommand = await event({ type: 'command_result', commandId: randomUUID(), processedDaysAgo: 40 });

    // Outbox: the newest row of a (channel, chat, session, kind) group always stays.
    const chatId = 42n;
    const outbox = async (kind: string, status: 'pending' | 'sending' | 'sent' | 'failed', sentDaysAgo: number | null, createdDaysAgo = sentDaysAgo ?? 0) => {
      const r = await db.outbox.create({
        data: {
          channel: 'telegram',
          dedupeKey: randomUUID(),
          kind,
          chatId,
          sessionId,
          payload: {},
          status,
          createdAt: ago(createdDaysAgo),
          sentAt: sentDaysAgo === null ? null : ago(sentDaysAgo),
        },
      });
      return r.id;
    };
    const keepOut: Record<string, bigint> = {};
    const goneOut: Record<string, bigint> = {};
    goneOut.cardOld1 = await outbox('card_update', 'sent', 100);
    goneOut.cardOld2 = await outbox('card_update', 'sent', 40);
    keepOut.cardRecent = await outbox('card_update', 'sent', 3);
    goneOut.finalOld = await outbox('final', 'sent', 90);
    keepOut.finalNewestButOld = await outbox('final', 'sent', 60); // the latest final of the chat and session (a held final)
    keepOut.resumeStatusOnly = await outbox('resume_status', 'sent', 70);
    keepOut.pendingOld = await outbox('progress', 'pending', null, 90);
    keepOut.failedOld = await outbox('progress', 'failed', null, 80);
    keepOut.sendingOld = await outbox('progress', 'sending', null, 70);
    keepOut.progressNewest = await outbox('progress', 'sent', 50); // newest of its group

    // Live progress rows: old finished ones go; an old `running` one stays while its session may
    // still be in that turn, and goes once the session is at rest.
    const busyId = randomUUID();
    await db.session.create({ data: { id: busyId, nodeId, executor: 'codex', folder: '/w2', state: 'Running', nativeSessionId: randomUUID() } });
    let ref = 0;
    const activity = async (sid: string, status: 'running' | 'ok' | 'error', ageDays: number) => {
      const at = ago(ageDays);
      const r = await db.sessionActivity.create({
        data: {
          sessionId: sid,
          ref: `r${++ref}`,
          kind: 'command',
          status,
          sourceRecordId: `rec${ref}`,
          sourceOffset: 0n,
          eventSeq: BigInt(ref),
          startedAt: at,
          updatedAt: at,
        },
      });
      return r.id;
    };
    const keepAct: Record<string, bigint> = {};
    const goneAct: Record<string, bigint> = {};
    goneAct.okOld = await activity(sessionId, 'ok', 40);
    goneAct.errorOld = await activity(sessionId, 'error', 90);
    goneAct.runningOldAtRest = await activity(sessionId, 'running', 60); // its session is Ready
    keepAct.runningOldBusy = await activity(busyId, 'running', 60); // its session is Running
    keepAct.okRecent = await activity(sessionId, 'ok', 2);
    keepAct.runningRecent = await activity(sessionId, 'running', 1);

    const deadLetter = async (daysAgo: number) =>
      (await db.agentDeadLetter.create({ data: { nodeId, reason: 'test', excerpt: '{', bytes: 1, receivedAt: new Date(NOW.getTime() - daysAgo * DAY) } })).id;
    const oldDeadLetter = await deadLetter(40);
    const recentDeadLetter = await deadLetter(2);

    const r = await sweepRetention(db, { days: 30, now: NOW, batchSize: 2, pauseMs: 0 });
    expect(r).toEqual({ commands: 3, events: 4, outbox: 3, activity: 3, prompts: 0, deadLetters: 1, pushes: 0, answerTokens: 0 });
    const letters = (await db.agentDeadLetter.findMany({ where: { nodeId }, select: { id: true } })).map((d) => d.id);
    expect(letters).toEqual([recentDeadLetter]);
    expect(letters).not.toContain(oldDeadLetter);
    const acts = new Set((await db.sessionActivity.findMany({ select: { id: true } })).map((a) => a.id));
    for (const [k, id] of Object.entries(keepAct)) expect(acts.has(id), `activity ${k} kept`).toBe(true);
    for (const [k, id] of Object.entries(goneAct)) expect(acts.has(id), `activity ${k} deleted`).toBe(false);

    // Re-read every row.
    const cmds = new Set((await db.agentCommand.findMany({ where: { nodeId }, select: { id: true } })).map((c) => c.id));
    for (const [k, id] of Object.entries(keepCmd)) expect(cmds.has(id), `command ${k} kept`).toBe(true);
    for (const [k, id] of Object.entries(goneCmd)) expect(cmds.has(id), `command ${k} deleted`).toBe(false);
    const evs = new Set((await db.agentEvent.findMany({ where: { nodeId }, select: { id: true } })).map((e) => e.id));
    for (const [k, id] of Object.entries(keepEv)) expect(evs.has(id), `event ${k} kept`).toBe(true);
    for (const [k, id] of Object.entries(goneEv)) expect(evs.has(id), `event ${k} deleted`).toBe(false);
    const outs = new Set((await db.outbox.findMany({ select: { id: true } })).map((o) => o.id));
    for (const [k, id] of Object.entries(keepOut)) expect(outs.has(id), `outbox ${k} kept`).toBe(true);
    for (const [k, id] of Object.entries(goneOut)) expect(outs.has(id), `outbox ${k} deleted`).toBe(false);
    expect(cmds.size).toBe(Object.keys(keepCmd).length);
    expect(evs.size).toBe(Object.keys(keepEv).length + 1); // + the unprocessed answer
    expect(outs.size).toBe(Object.keys(keepOut).length);

    // A second sweep finds nothing more.
    expect(await sweepRetention(db, { days: 30, now: NOW, pauseMs: 0 })).toEqual({
      commands: 0,
      events: 0,
      outbox: 0,
      activity: 0,
      prompts: 0,
      deadLetters: 0,
      pushes: 0,
      answerTokens: 0,
    });
    // Once the session lets go of its events and 100 more days pass, they go too (the command's answer with it).
    await db.session.update({ where: { id: sessionId }, data: { pendingFinalEventId: null, deferredEventIds: [] } });
    await db.session.update({ where: { id: busyId }, data: { state: 'Ready' } });
    const later = await sweepRetention(db, { days: 30, now: new Date(NOW.getTime() + 100 * DAY), pauseMs: 0 });
    // Left: pending, sent, acked-never-answered, acked-with-unprocessed-answer; the two unprocessed
    // events; the newest outbox row of each group.
    expect(later).toEqual({ commands: 2, events: 5, outbox: 0, activity: 3, prompts: 0, deadLetters: 1, pushes: 0, answerTokens: 0 });
    expect(await db.sessionActivity.count()).toBe(0);
    expect(await db.agentCommand.count({ where: { nodeId } })).toBe(4);
    expect(await db.agentEvent.count({ where: { nodeId } })).toBe(2);
  });

  it('each batch reads an index, not the whole table', async () => {
    const plan = async (sql: string) => {
      const out = await db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('set local enable_seqscan = off');
        return tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`explain ${sql}`);
      });
      return out.map((r) => r['QUERY PLAN']).join('\n');
    };
    const node = randomUUID();
    expect(
      await plan(`select c.id from "AgentCommand" c where c."nodeId" = '${node}'::uuid and c.status = 'acked' and c."createdAt" < now() limit 1000`),
    ).toContain('AgentCommand_nodeId_status_createdAt_idx');
    expect(await plan(`select e.id from "AgentEvent" e where e."processedAt" < now() order by e."processedAt" limit 1000`)).toContain(
      'AgentEvent_processedAt_idx',
    );
    expect(await plan(`select 1 from "AgentEvent" e where e."commandId" = '${node}'::uuid and e."processedAt" is null`)).toContain('AgentEvent_commandId_idx');
  });

  it('a stored answer marks its command acknowledged, so a command whose ack was lost is not sent again', async () => {
    const { nodeId } = await createNodeWithToken(db, { name: 'lost-ack' });
    const id = randomUUID();
    await db.agentCommand.create({ data: { id, nodeId, type: 'probe', payload: {} } });
    await markCommandsSent(db, [id], new Date());
    expect((await unackedCommands(db, nodeId)).map((c) => c.id)).toEqual([id]);
    // The command_ack never arrived; the answer did.
    await storeAgentEvent(db, nodeId, {
      type: 'event',
      seq: 1,
      at: Date.now(),
      event: 'command_result',
      commandId: id,
      payload: { command: 'probe', ok: true },
    });
    expect((await db.agentCommand.findUniqueOrThrow({ where: { id } })).status).toBe('acked');
    expect(await unackedCommands(db, nodeId)).toEqual([]);
  });
});
