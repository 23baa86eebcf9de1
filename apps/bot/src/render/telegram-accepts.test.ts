import { Api } from 'grammy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from '@bria/testkit/fake-telegram';
import { renderFinal, visibleText } from './index.ts';

// The fake Bot API parses HTML with the real server's rules: every part must be accepted as is.
let fake: FakeTelegram;
let api: Api;
beforeAll(async () => {
  fake = await startFakeTelegram();
  api = new Api(fake.token, { apiRoot: fake.apiRoot });
});
afterAll(() => fake.close());

const samples: string[] = [
  '# Plan\n\n1. **Read** the `config.ts`\n2. Fix _the_ bug in [docs](https://example.com/a?b=1&c=2)\n\n| file | lines |\n|---|---|\n| a.ts | 10 |\n\n> note: <script>alert(1)</script>',
  '```ts\nconst x = a < b && c > d ? "&" : \'<\';\n```\nafter',
  'unbalanced ``` backticks ` and ** stars _ and [links](',
  `\`\`\`python\n${'print("😀 ж & <tag>")\n'.repeat(700)}\`\`\``,
  Array.from({ length: 500 }, (_, i) => `- item ${i} **bold ${i}** *it* \`c${i}\` 😀`).join('\n'),
  `${'😀'.repeat(5000)}`,
  `**${'word '.repeat(2000)}**`,
];

describe('rendered finals through the fake Bot API', () => {
  it.each(samples.map((s, i) => [i, s] as const))('sample %i: every part is accepted and shows the expected text', async (_i, md) => {
    const parts = renderFinal(md);
    for (const html of parts) {
      const msg = await api.sendMessage(fake.user.id, html, { parse_mode: 'HTML' });
      expect(msg.text).toBe(visibleText(html).trim());
    }
  });
});
