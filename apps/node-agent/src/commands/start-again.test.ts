import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionRecord } from './registry.ts';
import { journalHoldsConversation } from './journal-content.ts';
import { claudeProjectDirName } from '../executors/claude-driver.ts';
import { nativeConversationOnDisk } from './native-conversation.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'bria-start-again-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const identity = (journalPath: string | null) =>
  ({
    tmuxSocket: 's',
    tmuxSession: 't',
    paneId: '%1',
    panePid: 1,
    cliPid: 2,
    cliStartTime: '3',
    cwd: dir,
    nativeId: 'n',
    journalPath,
    exitFile: 'x',
  }) as unknown as SessionRecord['identity'];

const rec = (over: Partial<SessionRecord> = {}): SessionRecord => ({
  sessionId: 's1',
  executor: 'codex',
  folder: dir,
  generation: 2,
  identity: identity(path.join(dir, 'absent.jsonl')),
  journalOffset: 0,
  turns: [],
  unconfirmed: [],
  deliveries: [],
  status: 'exited',
  recent: [],
  ...over,
});

describe('journalHoldsConversation', () => {
  const file = (name: string, text: string) => {
    const f = path.join(dir, name);
    writeFileSync(f, text);
    return f;
  };
  it('a journal of only mode lines (Claude exiting before its first prompt) holds none', () => {
    expect(journalHoldsConversation(file('meta.jsonl', '{"type":"mode","mode":"normal"}\n{"type":"permission-mode","permissionMode":"default"}\n'))).toBe(
      false,
    );
    expect(journalHoldsConversation(file('blank.jsonl', ''))).toBe(false);
  });
  it('anything else, or doubt, holds one', () => {
    expect(journalHoldsConversation(file('user.jsonl', '{"type":"mode"}\n{"type":"user","message":{}}\n'))).toBe(true);
    expect(journalHoldsConversation(file('codex.jsonl', '{"type":"session_meta","payload":{}}\n'))).toBe(true);
    expect(journalHoldsConversation(file('torn.jsonl', '{"type":"mode"}\n{"type":'))).toBe(true);
    expect(journalHoldsConversation(path.join(dir, 'nope.jsonl'))).toBe(true);
  });
});

// A mark of a paste that never got a receipt must not block a start again for ever
// when the CLI's own store shows that no prompt was ever submitted under its id.
describe('nativeConversationOnDisk', () => {
  const home = mkdtempSync(path.join(tmpdir(), 'bria-native-store-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const env = { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex') };
  const withId = (executor: 'claude' | 'codex', nativeId: string, journalPath: string | null = null) =>
    rec({ executor, identity: { ...identity(journalPath)!, nativeId } });

  it('Claude: no journal, or one of mode lines only → none; a journal with a prompt → one', async () => {
    const id = '6f0c7c52-0b59-4d0e-9b59-1d2b3c4d5e6f';
    expect(await nativeConversationOnDisk(withId('claude', id), env)).toBe(false);
    const project = path.join(env.CLAUDE_CONFIG_DIR, 'projects', claudeProjectDirName(dir));
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, `${id}.jsonl`), '{"type":"mode","mode":"normal"}\n');
    expect(await nativeConversationOnDisk(withId('claude', id), env)).toBe(false);
    writeFileSync(path.join(project, `${id}.jsonl`), '{"type":"user","message":{"content":"hi"}}\n');
    expect(await nativeConversationOnDisk(withId('claude', id), env)).toBe(true);
  });

  it('Codex: no rollout of its id → none; a rollout named with its id anywhere under sessions → one', async () => {
    const id = '01a23651-d848-7b63-9a2f-558796e706b5';
    expect(await nativeConversationOnDisk(withId('codex', id), env)).toBe(false);
    const day = path.join(env.CODEX_HOME, 'sessions', '2026', '12', '02');
    mkdirSync(day, { recursive: true });
    writeFileSync(path.join(day, 'rollout-2026-12-02T20-04-33-01a23651-0000-7b63-9a2f-000000000000.jsonl'), '{"type":"session_meta","payload":{}}\n');
    expect(await nativeConversationOnDisk(withId('codex', id), env)).toBe(false);
    writeFileSync(path.join(day, `rollout-2026-12-02T20-04-33-${id}.jsonl`), '{"type":"session_meta","payload":{}}\n');
    expect(await nativeConversationOnDisk(withId('codex', id), env)).toBe(true);
  });

  it('without an identity it cannot be told', async () => {
    expect(await nativeConversationOnDisk(rec({ identity: null }), env)).toBeNull();
  });
});
