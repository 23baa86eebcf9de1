import { describe, expect, it } from 'vitest';
import { translator } from '@bria/core/i18n';
import type { PromptView } from '@bria/core/services';
import { visibleText } from '../render/index.ts';
import { MAX_OPTIONS, MAX_QUESTIONS, type PromptPress, promptCb } from './prompt-callback.ts';
import { drawPrompt } from './prompt-view.ts';

const t = translator('en');
const ID = '3f1c2a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const session = { title: 'Refactor', folder: '/home/ada/shop', executor: 'codex' };
const view = (o: Partial<PromptView>): PromptView => ({
  id: ID,
  sessionId: '10000000-0000-4000-8000-000000000001',
  kind: 'tool',
  toolName: 'Bash',
  toolInput: {},
  justification: null,
  canAlwaysAllow: false,
  state: 'pending',
  answer: null,
  answeredFrom: null,
  answeredAt: null,
  receivedAt: new Date(),
  expiresAt: new Date(),
  resolvedAt: null,
  endCause: null,
  ...o,
});
const text = (v: PromptView) => visibleText(drawPrompt({ view: v, session, t }).html);

describe('prompt buttons (callback data)', () => {
  it('round-trips every kind of press within 64 bytes, the largest request included', () => {
    const picks = Array.from({ length: MAX_QUESTIONS }, () => 255);
    const presses: PromptPress[] = [
      { op: 'allow', promptId: ID },
      { op: 'deny', promptId: ID },
      { op: 'always', promptId: ID },
      { op: 'reason', promptId: ID },
      { op: 'cancel', promptId: ID },
      { op: 'option', promptId: ID, q: MAX_QUESTIONS - 1, i: MAX_OPTIONS - 1, picks },
      { op: 'send', promptId: ID, q: 0, picks: [5] },
      { op: 'text', promptId: ID, q: 1, picks: [0, 2] },
    ];
    for (const p of presses) {
      const data = promptCb.encode(p);
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
      expect(promptCb.decode(data)).toEqual(p);
    }
  });

  it('refuses data it did not write', () => {
    for (const bad of [
      `pr:${ID}:z`,
      `pr:not-an-id:a`,
      `pr:${ID}:a:1`,
      `pr:${ID}:o:1:0:00`,
      `pr:${ID}:o:0:9:00`,
      `pr:${ID}:s:0:0g`,
      `pr:${ID}:t:0`,
      `stop:1:${ID}`,
    ]) {
      expect(promptCb.decode(bad), bad).toBeUndefined();
    }
  });
});

describe('the message of a request', () => {
  it('an edit shows the file and a short diff (old lines -, new lines +), clipped', () => {
    const old = Array.from({ length: 20 }, (_, k) => `old ${k}`).join('\n');
    const out = text(view({ toolName: 'Edit', toolInput: { file_path: '/home/ada/shop/src/cart.ts', old_string: old, new_string: 'new 0\nnew 1' } }));
    expect(out).toContain(
      'Permission request · Refactor · shop\nFolder: /home/ada/shop · Codex\n\nTool: Edit\nFile: /home/ada/shop/src/cart.ts\n- old 0\n- old 1',
    );
    expect(out).toContain('- old 9\n- … 10 more lines\n+ new 0\n+ new 1\n\nWaiting for your answer.');
  });

  it("a write shows the file and its first lines; other tools a compact view of the input; Codex's justification", () => {
    const content = Array.from({ length: 15 }, (_, k) => `line <${k}>`).join('\n');
    expect(text(view({ toolName: 'Write', toolInput: { file_path: '/home/ada/shop/README.md', content } }))).toContain(
      'File: /home/ada/shop/README.md\nline <0>\n',
    );
    expect(text(view({ toolName: 'Write', toolInput: { file_path: '/r.md', content } }))).toContain('line <11>\n… 3 more lines');
    expect(text(view({ toolName: 'WebFetch', toolInput: { url: 'https://example.com', prompt: 'read it' } }))).toContain(
      'Tool: WebFetch\n{ "url": "https://example.com", "prompt": "read it" }',
    );
    const codex = text(view({ toolName: 'exec_command', toolInput: { cmd: 'rm -rf build' }, justification: 'clean the build before packaging' }));
    expect(codex).toContain('rm -rf build\nWhy: clean the build before packaging\n\nWaiting for your answer.');
  });

  it('always-allow: the button names the exact command; none for a shell, a compound command or a Write', () => {
    const labels = (v: PromptView) => (drawPrompt({ view: v, session, t }).keyboard?.inline_keyboard ?? []).flat().map((b) => b.text);
    expect(labels(view({ canAlwaysAllow: true, toolInput: { command: 'npm test' } }))).toContain('Allow `npm test` for this session');
    for (const toolInput of [{ command: 'bash -c "npm test"' }, { command: 'npm test && curl x | sh' }, { command: 'sudo make install' }])
      expect(labels(view({ canAlwaysAllow: true, toolInput })).filter((l) => l.includes('session'))).toEqual([]);
    expect(
      labels(view({ canAlwaysAllow: true, toolName: 'Write', toolInput: { file_path: '/w/a', content: 'x' } })).filter((l) => l.includes('session')),
    ).toEqual([]);
    const answered = view({
      canAlwaysAllow: true,
      toolInput: { command: 'npm test' },
      state: 'answered',
      answer: { decision: 'always_allow' },
      answeredFrom: 'telegram',
    });
    expect(text(answered).endsWith('Answered: Allow `npm test` for this session (from Telegram)')).toBe(true);
  });

  it('says how it ended, without buttons', () => {
    const answered = view({ state: 'answered', answer: { decision: 'always_allow' }, answeredFrom: 'dashboard' });
    expect(text(answered).endsWith('Answered: Always allow this for the session (from the dashboard)')).toBe(true);
    expect(drawPrompt({ view: answered, session, t }).keyboard).toBeUndefined();
    expect(text(view({ state: 'delivered', answer: { decision: 'deny' }, answeredFrom: 'telegram' })).endsWith('Denied (from Telegram)')).toBe(true);
    expect(text(view({ state: 'ended' })).endsWith('No longer pending: the turn ended.')).toBe(true);
  });
});
