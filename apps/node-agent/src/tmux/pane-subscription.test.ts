import { describe, expect, it } from 'vitest';
import { parsePanesNotification } from './pane-subscription.ts';

describe('pane subscription notifications', () => {
  it.each<[string, string, [string, boolean][] | null]>([
    [
      'live and dead panes',
      '%subscription-changed bria-panes $0 @0 0 %0 - : %0=0 %3=1 %12=0 ',
      [
        ['%0', false],
        ['%3', true],
        ['%12', false],
      ],
    ],
    ['no panes left', '%subscription-changed bria-panes $0 @0 0 %0 - : ', []],
    ['another subscription', '%subscription-changed other $0 @0 0 %0 - : %0=1 ', null],
    ['another notification', '%output %0 %1=1', null],
  ])('%s', (_, line, expected) => {
    const panes = parsePanesNotification(line);
    expect(panes === null ? null : [...panes]).toEqual(expected);
  });
});
