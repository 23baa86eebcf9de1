import { SharePicker } from '../../../components/push/share-picker.tsx';
import { requireSession } from '../../../server/session.ts';

export const dynamic = 'force-dynamic';

const one = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).slice(0, 20_000);

/** The installed dashboard's share target (manifest.ts): shared text becomes a message to a session the user picks. */
export default async function SharePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireSession();
  const p = await searchParams;
  // Apps share a page as title + url, a selection as text; all of it goes, each once, in that order.
  const parts = [one(p.title), one(p.text), one(p.url)].map((x) => x.trim()).filter((x, i, all) => x !== '' && all.indexOf(x) === i);
  return <SharePicker initialText={parts.join('\n')} />;
}
