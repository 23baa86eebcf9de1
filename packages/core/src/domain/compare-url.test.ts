import { describe, expect, it } from 'vitest';
import { compareUrl } from './compare-url.ts';

describe('compareUrl', () => {
  it.each([
    ['git@github.com:ada/engine.git', 'https://github.com/ada/engine/compare/main...bria/fix-login'],
    ['https://github.com/ada/engine.git', 'https://github.com/ada/engine/compare/main...bria/fix-login'],
    ['https://ada@github.com/ada/engine', 'https://github.com/ada/engine/compare/main...bria/fix-login'],
    ['ssh://git@github.com/ada/engine.git', 'https://github.com/ada/engine/compare/main...bria/fix-login'],
    ['git@gitlab.com:group/sub/engine.git', 'https://gitlab.com/group/sub/engine/-/compare/main...bria/fix-login'],
    ['https://codeberg.org/ada/engine', 'https://codeberg.org/ada/engine/compare/main...bria/fix-login'],
    ['git@bitbucket.org:ada/engine.git', 'https://bitbucket.org/ada/engine/branches/compare/bria/fix-login%0Dmain'],
    ['/srv/git/engine.git', null],
    ['git@git.example.com:ada/engine.git', null],
    ['https://github.com/', null],
  ])('%s', (url, page) => {
    expect(compareUrl(url, 'main', 'bria/fix-login')).toBe(page);
  });
  it('encodes what a branch name may hold but a URL may not', () => {
    expect(compareUrl('git@github.com:a/b.git', 'main', 'bria/fix#1')).toBe('https://github.com/a/b/compare/main...bria/fix%231');
  });
});
