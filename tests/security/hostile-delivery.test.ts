import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTrustedDir, claudeBin } from '@bria/testkit/cli-homes';
import { claudeDriver } from '../../apps/node-agent/src/executors/claude-driver.ts';
import { SessionHost } from '../../apps/node-agent/src/executors/session-host.ts';
import { createRig, type Rig } from '../../apps/node-agent/test-support/test-rig.ts';
import type { HostEvent, SessionIdentity } from '../../apps/node-agent/src/executors/types.ts';

/**
 * Hostile message texts go through `SessionHost.deliver` into the real Claude Code (against the mock
 * model) in a folder whose own name is hostile. They must reach the model and the journal byte-exact
 * and never run: every shell payload would create a canary file, and none may exist afterwards.
 */
let rig: Rig;
const canaries = mkdtempSync(join(tmpdir(), 'bria-canaries-'));
let host: SessionHost;
let id: SessionIdentity;

beforeAll(async () => {
  rig = await createRig('claude');
});
afterAll(async () => {
  await rig?.dispose();
  rmSync(canaries, { recursive: true, force: true });
});

const c = (name: string) => join(canaries, name);
const canaryFiles = () => readdirSync(canaries);
const journal = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type?: string; uuid?: string; message?: { content?: unknown } });

/** Each payload creates its canary when a shell evaluates it (proved below with `sh -c`). */
const SHELL = [
  `$(touch ${c('dollar-paren')})`,
  `\`touch ${c('backtick')}\``,
  `x; touch ${c('semicolon')}`,
  `x && touch ${c('and')} || touch ${c('or')}`,
  `x | touch ${c('pipe')}`,
  `\ntouch ${c('newline')}\n`,
  `'; touch ${c('quote-break')}; echo '`,
  `"; touch ${c('dquote-break')}; echo "`,
  `\${IFS}$(touch\${IFS}${c('ifs')})`,
].join(' ');
const TMUX_KEYS = 'C-c Enter Escape C-d C-z M-x F1 BSpace Up ; send-keys -t 0 C-c Enter ; kill-server ; #{pane_pid} #(touch CANARY)';

function sendAndFinish(text: string, ms = 60_000): Promise<{ nativeRef: string; final: string }> {
  return (async () => {
    const messageId = randomUUID();
    const r = await host.deliver({ messageId, text });
    expect(r, `delivery of ${JSON.stringify(text.slice(0, 60))}`).toMatchObject({ accepted: true });
    const done = (e: HostEvent) => e.type === 'final' && e.messageId === messageId;
    const final = (await host.waitFor(done, ms)) as Extract<HostEvent, { type: 'final' }>;
    return { nativeRef: r.accepted ? r.nativeRef : '', final: final.text };
  })();
}

function lastTurnRequest() {
  return rig.mock.requests.filter((r) => r.kind === 'turn' && r.sessionId === id.nativeId).at(-1);
}

describe('hostile texts and a hostile folder name reach Claude Code exactly and never run', () => {
  it('the shell payloads are live: evaluated by sh they create their canaries', () => {
    const probe = join(rig.root, 'probe');
    mkdirSync(probe);
    try {
      execFileSync('sh', ['-c', `echo ${SHELL.replaceAll(canaries, probe)}`], { cwd: rig.root, stdio: 'ignore' });
    } catch {
      // Some payloads leave the shell with a failing status; what matters is what they created.
    }
    expect(readdirSync(probe)).toEqual(expect.arrayContaining(['dollar-paren', 'backtick', 'semicolon', 'and', 'newline', 'ifs']));
    expect(canaryFiles()).toEqual([]);
  });

  it('starts in a folder named with quotes, $(…), backticks and ; (the wrapper script quotes it)', async () => {
    const folder = join(rig.root, `it's $(touch ${c('folder')}) \`touch ${c('folder2')}\` ; x`);
    mkdirSync(folder, { recursive: true });
    await addTrustedDir(rig.home, folder);
    host = new SessionHost({ driver: claudeDriver, tmux: rig.tmux, bin: claudeBin, env: rig.env, timeouts: { receiptMs: 60_000 } });
    id = await host.start({ cwd: folder, sessionName: 'sec-hostile' });
    expect(id.cwd).toBe(folder);
    expect(readlinkSync(`/proc/${id.cliPid}/cwd`)).toBe(folder);
    expect(canaryFiles()).toEqual([]);
  });

  const CASES: [string, string][] = [
    ['shell metacharacters', `Please echo this: ${SHELL}`],
    ['tmux key names and format strings', TMUX_KEYS],
    ['a text that is only a key name', 'C-c'],
    ['a text that is only Enter', 'Enter'],
    [
      '1 MB of text',
      Array.from({ length: 16_000 }, (_, i) => `${String(i).padStart(6, '0')} $(touch ${c('big')}) \`x\` ; C-c Enter`)
        .join('\n')
        .padEnd(1024 * 1024, '.'),
    ],
  ];
  for (const [name, text] of CASES) {
    it(`${name}: the model and the journal get the exact text; no canary, the CLI still runs`, async () => {
      const { nativeRef, final } = await sendAndFinish(text);
      const req = lastTurnRequest();
      expect(req?.userText).toBe(text);
      expect(final).toBe(req?.reply);
      const rec = journal(id.journalPath!).find((r) => r.uuid === nativeRef);
      expect(rec?.message?.content).toBe(text);
      expect(canaryFiles()).toEqual([]);
      expect(existsSync(`/proc/${id.cliPid}`)).toBe(true);
    });
  }

  it('escape sequences and control characters never act on the terminal: no interrupt, no exit, no canary', async () => {
    // Claude Code itself drops escape sequences (and, depending on the paste, DEL and CR), so such a
    // text cannot arrive byte-exact: acceptMessage refuses it at the door (hostile-messages.test.ts).
    // Typed into the pane anyway, none of it may act: ^C does not interrupt, ^D does not exit, ^Z does
    // not suspend, and nothing runs.
    const text = `before \u001b[2J\u001b]0;pwned\u0007 \u0003 \u0004 \u001a \u0008 \u007f \r $(touch ${c('ctl')}) after`;
    const turnsBefore = rig.mock.requests.filter((r) => r.kind === 'turn').length;
    void host.deliver({ messageId: randomUUID(), text });
    const req = await rig.mock.waitForRequest((r) => r.kind === 'turn' && r.id > turnsBefore && (r.userText ?? '').startsWith('before'), 30_000);
    // ^C, ^D and ^Z arrived as characters of the text: they were typed, not obeyed.
    expect(req.userText?.startsWith('before ')).toBe(true);
    expect(req.userText).toContain('\u0003 \u0004 \u001a ');
    expect(req.userText?.endsWith(`$(touch ${c('ctl')}) after`)).toBe(true);
    expect(req.userText).not.toContain('\u001b');
    await new Promise((r) => setTimeout(r, 1500));
    expect(canaryFiles()).toEqual([]);
    expect(existsSync(`/proc/${id.cliPid}`)).toBe(true);
    expect(readFileSync(`/proc/${id.cliPid}/stat`, 'utf8').split(') ')[1]?.[0]).not.toBe('T');
    expect(await rig.tmux.readExitStatus(id.exitFile)).toBeNull();
  });
});
