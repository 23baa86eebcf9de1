import { describe, expect, it } from 'vitest';
import { assertSessionName, parsePaneLine, parsePaneList } from './pane-format.ts';

describe('pane format parsing', () => {
  it('parses live and dead panes', () => {
    const panes = parsePaneList('s1\t%3\t1234\t0\t\tclaude\nmy session\t%4\t99\t1\t0\tsh\n');
    expect(panes).toEqual([
      { sessionName: 's1', paneId: '%3', panePid: 1234, dead: false, deadStatus: null, currentCommand: 'claude' },
      { sessionName: 'my session', paneId: '%4', panePid: 99, dead: true, deadStatus: 0, currentCommand: 'sh' },
    ]);
  });
  it('rejects malformed lines', () => {
    expect(parsePaneLine('s1\t3\t1234\t0\t\tclaude')).toBeNull();
    expect(parsePaneLine('s1\t%3\tabc\t0\t\tclaude')).toBeNull();
    expect(parsePaneLine('s1 %3 1234 0 claude')).toBeNull();
  });
  it('only allows names that cannot address another target', () => {
    expect(() => assertSessionName('bria-claude_1')).not.toThrow();
    for (const bad of ['a.b', 'a:b', '', 'a b', '=x']) expect(() => assertSessionName(bad)).toThrow();
  });
});
