import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { lastUserImages } from './read-body.ts';

const bytes = Buffer.from('not really an image, only bytes');
const b64 = bytes.toString('base64');
const named = (mediaType: string) => ({ mediaType, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });

describe('lastUserImages: the images of the latest user message, named by their bytes', () => {
  it.each([
    [
      'Anthropic image blocks',
      [
        { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/gif', data: b64 } }] },
        { role: 'assistant', content: [{ type: 'text', text: 'x' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 't' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } },
          ],
        },
      ],
      [named('image/png')],
    ],
    [
      'OpenAI input_image data URLs',
      [{ type: 'message', role: 'user', content: [{ type: 'input_image', image_url: `data:image/jpeg;base64,${b64}` }] }],
      [named('image/jpeg')],
    ],
    ['a plain text message', [{ role: 'user', content: 'hello' }], []],
    ['an image URL that is not inline', [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] }], []],
    ['no user message', [{ role: 'assistant', content: [] }], []],
  ])('%s', (_, items, images) => {
    expect(lastUserImages(items)).toEqual(images);
  });
});
