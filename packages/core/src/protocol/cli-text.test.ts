import { describe, expect, it } from 'vitest';
import { cliTextRefusal } from './cli-text.ts';

describe('cliTextRefusal: the few texts a CLI cannot pass to its model as sent', () => {
  it('refuses outer whitespace for both CLIs (both trim it)', () => {
    for (const executor of ['claude', 'codex'] as const) {
      for (const text of [' leading', 'trailing ', '\nfirst line empty', 'last line empty\n', '\ttab', ' ']) {
        expect(cliTextRefusal(executor, text), JSON.stringify(text)).toBe('msg.refusedCliWhitespace');
      }
    }
  });

  it('refuses for Claude a / followed by a command-like word, its exit words, and a lone ? or !', () => {
    for (const text of ['/help', '/help me', '/unknownword please\nsecond', '/plugin:cmd x', '/', '/\nnext', '/ x', '/tmp is big']) {
      expect(cliTextRefusal('claude', text), text).toBe('msg.refusedCliCommand');
    }
    for (const text of ['exit', 'quit', ':q', ':q!', ':wq', ':wq!', '?', '!']) expect(cliTextRefusal('claude', text), text).toBe('msg.refusedCliWord');
  });

  it('keeps for Claude paths after /, and every other leading character', () => {
    for (const text of [
      '/srv/app/notes.md is the file to read',
      '/srv/app\nsecond',
      '/notes.md',
      '!touch x',
      '!!',
      '#note',
      '@foo',
      '? what',
      '?\nmore',
      'exit now',
      'a /help',
      'exit.',
    ]) {
      expect(cliTextRefusal('claude', text), text).toBeNull();
    }
  });

  it('keeps for Codex every text without outer whitespace, commands and exit words included', () => {
    for (const text of ['/help me', '/', '!touch x', '!', '?', 'exit', '#x\n@y', '@foo', '/srv/app/notes.md']) {
      expect(cliTextRefusal('codex', text), text).toBeNull();
    }
  });
});
