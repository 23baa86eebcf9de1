/**
 * The web page comparing a pushed branch with its base, for hosts whose address scheme is known
 * (GitHub, GitLab, Codeberg, Bitbucket); null for any other remote (a bare folder, a company
 * server). Pure: it reads the remote's URL only.
 */
const HOSTS: Record<string, (repo: string, base: string, branch: string) => string> = {
  'github.com': (r, a, b) => `https://github.com/${r}/compare/${a}...${b}`,
  'gitlab.com': (r, a, b) => `https://gitlab.com/${r}/-/compare/${a}...${b}`,
  'codeberg.org': (r, a, b) => `https://codeberg.org/${r}/compare/${a}...${b}`,
  'bitbucket.org': (r, a, b) => `https://bitbucket.org/${r}/branches/compare/${b}%0D${a}`,
};

/** `git@host:owner/repo.git`, `ssh://git@host/owner/repo`, `https://host/owner/repo.git` → host and path. */
function hostAndPath(url: string): { host: string; path: string } | null {
  const scp = /^[\w.-]+@([\w.-]+):(?!\/)(.+)$/.exec(url);
  const full = /^(?:https?|ssh|git):\/\/(?:[^@/]*@)?([\w.-]+)(?::\d+)?\/(.+)$/.exec(url);
  const m = scp ?? full;
  if (!m?.[1] || !m[2]) return null;
  return { host: m[1].toLowerCase(), path: m[2].replace(/\.git$/, '').replace(/\/+$/, '') };
}

const ref = (name: string) => name.split('/').map(encodeURIComponent).join('/');

export function compareUrl(remoteUrl: string, base: string, branch: string): string | null {
  const parts = hostAndPath(remoteUrl.trim());
  if (!parts) return null;
  const page = HOSTS[parts.host];
  if (!page || !/^[\w.-]+(\/[\w.-]+)+$/.test(parts.path)) return null;
  return page(parts.path, ref(base), ref(branch));
}
