import { claudeTitle } from './claude-journal.ts';
import { codexPrompts } from './codex-rollout.ts';
import type { FileEntry } from './index-state.ts';
import type { DiscoveredSession } from './session-types.ts';

// What a session list shows for one indexed journal. Built once per change and frozen, so the
// same object can be handed out by every scan until its journal changes again.

export function toSession(file: string, e: FileEntry, live: Set<string>, codexTitles: Record<string, string>): DiscoveredSession | null {
  const s = buildSession(file, e, live, codexTitles);
  return s && Object.freeze(s);
}

function buildSession(file: string, e: FileEntry, live: Set<string>, codexTitles: Record<string, string>): DiscoveredSession | null {
  if (e.unreadable && e.offset === 0) return null;
  const f = e.fields;
  if (f.kind === 'claude') {
    // Subagent transcripts are not sessions anyone can resume.
    if (f.sawSidechain && !f.sawMain) return null;
    return {
      executor: 'claude',
      nativeId: e.nativeId,
      cwd: f.cwd,
      file,
      startedAt: f.startedAt,
      lastActivityAt: f.lastActivityAt,
      title: claudeTitle(f),
      firstPrompt: f.firstPrompt,
      lastPrompt: f.lastPrompt ?? f.exitPrompt,
      userTurns: f.userTurns,
      cliVersion: f.cliVersion,
      originator: f.entrypoint,
      source: null,
      live: live.has(e.nativeId),
    };
  }
  const prompts = codexPrompts(f);
  return {
    executor: 'codex',
    nativeId: e.nativeId,
    cwd: f.cwd,
    file,
    startedAt: f.startedAt,
    lastActivityAt: f.lastActivityAt,
    title: codexTitles[e.nativeId] ?? null,
    ...prompts,
    cliVersion: f.cliVersion,
    originator: f.originator,
    source: f.source,
    live: null,
  };
}
