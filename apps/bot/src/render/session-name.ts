/** The last part of a folder path (`/home/ada/proj-b/` → `proj-b`), or the path itself when it has none. */
export function folderLast(folder: string): string {
  const parts = folder.split('/').filter(Boolean);
  return parts.at(-1) ?? folder;
}

/**
 * How a notice names a session: its title (or first prompt) and the last part of its folder, as the
 * card shows the folder. Two sessions with the same title in different folders read apart.
 */
export function sessionName(s: { title: string | null; firstPrompt?: string | null; folder: string }, untitled: string, max = 80): string {
  const title = (s.title ?? s.firstPrompt ?? untitled).replace(/\s+/g, ' ').trim() || untitled;
  const where = folderLast(s.folder);
  return `${title.length > max ? `${title.slice(0, max - 1)}…` : title} · ${where}`;
}

/**
 * A button label made of fixed words and a folder, at most `max` characters (Telegram shows little
 * more). Sessions in one list differ mostly at the END of their folders, so the folder is cut at its
 * start (`…/b/proj-b`), never at its end. `line` builds the label around the folder text it is given.
 */
export function fitFolderLabel(line: (folder: string) => string, folder: string, max = 60): string {
  const full = line(folder);
  if (full.length <= max) return full;
  const room = max - line('').length - 1;
  if (room < 8) return `${full.slice(0, max - 1)}…`;
  return line(`…${folder.slice(-room)}`);
}
