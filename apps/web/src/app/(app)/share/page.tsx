import { SharePicker } from '../../../components/push/share-picker.tsx';
import { requireSession } from '../../../server/session.ts';

export const dynamic = 'force-dynamic';

const one = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).slice(0, 20_000);

/**
 * The installed dashboard's share target (manifest.ts): shared text and files become a message to a
 * session the user picks. `files` = how many files the service worker keeps for this page (public/sw.js);
 * `dropped` = how many the server-side fallback could not carry (share/receive/route.ts).
 */
export default async function SharePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireSession();
  const p = await searchParams;
  // Apps share a page as title + url, a selection as text; all of it goes, each once, in that order.
  const parts = [one(p.title), one(p.text), one(p.url)].map((x) => x.trim()).filter((x, i, all) => x !== '' && all.indexOf(x) === i);
  const count = (v: string) => Math.max(0, Math.min(20, Number.parseInt(v, 10) || 0));
  return (
    <SharePicker
      initialText={parts.join('\n')}
      sharedFiles={count(one(p.files))}
      droppedFiles={count(one(p.dropped))}
      unreadable={one(p.error) === 'unreadable'}
    />
  );
}
