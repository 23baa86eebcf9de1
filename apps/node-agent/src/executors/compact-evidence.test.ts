import { describe, expect, it } from 'vitest';
import { compactEvidence, compactTyped } from './session-host.ts';

describe('the CLI\'s /compact as its journal records it (pinned CLIs, seen by hand)', () => {
  const claudeDone = [
    '{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>\\n            <command-message>compact</command-message>\\n            <command-args></command-args>"}}',
    '{"type":"user","message":{"role":"user","content":"<local-command-stdout>\\u001b[2mCompacted (ctrl+o to see full summary)\\u001b[22m</local-command-stdout>"}}',
  ].join('\n');
  it('Claude: the command record and its own output line, without ANSI', () => {
    expect(compactEvidence('claude', claudeDone)).toBe('Compacted (ctrl+o to see full summary)');
    expect(compactEvidence('claude', claudeDone.split('\n')[0]!)).toBeNull();
    expect(compactEvidence('claude', '{"type":"user","message":{"content":"please /compact this"}}')).toBeNull();
    expect(compactEvidence('claude', claudeDone.replace('Compacted (ctrl+o to see full summary)', 'Not enough messages to compact'))).toBe('Not enough messages to compact');
  });
  it('Codex: an item_completed ContextCompaction', () => {
    expect(compactEvidence('codex', '{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"ContextCompaction","id":"x"}}}')).toBe('Compacted');
    expect(compactEvidence('codex', '{"type":"event_msg","payload":{"type":"task_complete"}}')).toBeNull();
  });
  it('Enter goes only when the input line holds exactly the command, not a popup entry', () => {
    expect(compactTyped('codex', '› /compact  summarize conversation to prevent hitting the context limit\n› /compact\n  mock-model default')).toBe(true);
    expect(compactTyped('codex', '› /compact  summarize conversation to prevent hitting the context limit\n› /comp')).toBe(false);
    expect(compactTyped('claude', '────────\n❯\u00a0/compact\n────────\n  ? for shortcuts')).toBe(true);
    expect(compactTyped('claude', '────────\n❯\u00a0/compa\n────────')).toBe(false);
  });
});
