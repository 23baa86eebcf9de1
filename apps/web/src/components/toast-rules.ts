/** The session shown on a path (`/sessions/<id>`), if any. */
export function sessionOnScreen(path: string): string | null {
  return /^\/sessions\/([0-9a-f-]{36})(?:[/?#]|$)/i.exec(path)?.[1] ?? null;
}

/**
 * Sessions whose turn just finished (Running → Ready between two looks at the open lists), except
 * the one on screen: the page already shows that answer. The first look (no earlier states) finishes nothing.
 */
export function finishedSince(prev: ReadonlyMap<string, string> | null, next: readonly { id: string; state: string }[], onScreen: string | null): string[] {
  if (!prev) return [];
  return next.filter((s) => s.id !== onScreen && s.state === 'Ready' && prev.get(s.id) === 'Running').map((s) => s.id);
}
