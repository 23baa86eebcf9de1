'use client';
import type { AnyKey } from '../i18n/catalog.ts';
import { type ActivityRow, activityLine, type CurrentActivityView, diffLines, duration, type LooseGroup, stepMs } from './activity-stream.ts';
import { useI18n } from './i18n-context.tsx';
import { Markdown } from './markdown.tsx';

const ICON: Record<string, string> = { command: '$', edit: '✎', write: '✚', read: '≡', search: '⌕', question: '?', tool: '⚙' };
const KINDS = new Set(['command', 'edit', 'write', 'read', 'search', 'question', 'tool']);

/** The steps of one turn in time order: assistant text as text, each tool call as a row that opens. */
export function ActivityList({ rows, now, awaiting }: { rows: readonly ActivityRow[]; now: number; awaiting?: ReadonlySet<string> | undefined }) {
  if (rows.length === 0) return null;
  return (
    <ol className="activity" data-testid="activity">
      {rows.map((r) => (
        <li key={r.id} data-testid="activity-row" data-kind={r.kind} data-status={r.status} data-ref={r.ref} data-awaiting={awaiting?.has(r.id) || undefined}>
          {r.kind === 'text' ? <TextStep row={r} /> : <ToolStep row={r} now={now} awaiting={awaiting?.has(r.id) ?? false} />}
        </li>
      ))}
    </ol>
  );
}

/**
 * Rows no turn on screen claims, under their own heading at their place in time: typed at the
 * computer, or a Bria request the journal shown does not have yet (`seq` known) or any more.
 */
export function LooseActivity({
  group,
  seq,
  now,
  awaiting,
}: {
  group: LooseGroup;
  seq: number | undefined;
  now: number;
  awaiting?: ReadonlySet<string> | undefined;
}) {
  const { t } = useI18n();
  const title = group.messageId === null ? t('stream.atComputer') : seq === undefined ? t('stream.earlier') : t('stream.request', { seq });
  return (
    <li className="turn" data-testid="activity-group" data-native-turn={group.nativeTurnId ?? undefined}>
      <p className="who">{title}</p>
      <ActivityList rows={group.rows} now={now} awaiting={awaiting} />
    </li>
  );
}

function TextStep({ row }: { row: ActivityRow }) {
  return (
    <div className="activity-text" data-testid="activity-text">
      <Markdown text={row.text ?? ''} />
      <Source row={row} />
    </div>
  );
}

function ToolStep({ row, now, awaiting }: { row: ActivityRow; now: number; awaiting: boolean }) {
  const { t } = useI18n();
  // `now` ticks every few seconds; a step that started since then must not read negative. A step
  // held by a permission request has no clock: it waits for an answer, it does not run.
  const ms = awaiting ? null : stepMs(row, Math.max(now, Date.now()));
  const kind = KINDS.has(row.kind) ? row.kind : 'tool';
  const changed = row.diffAdded !== null || row.diffRemoved !== null;
  return (
    <details className={`step step-${row.status}`}>
      <summary data-testid="activity-summary">
        <span className="step-icon" aria-hidden="true">
          {ICON[kind]}
        </span>
        <span className="step-kind">{t(`stream.kind.${kind}` as AnyKey)}</span>
        <code className="step-subject" data-testid="activity-subject">
          {row.subject ?? row.toolName ?? ''}
        </code>
        {changed && (
          <span className="step-diffstat" data-testid="activity-diffstat">
            <span className="ok-text">+{row.diffAdded ?? 0}</span> <span className="danger-text">−{row.diffRemoved ?? 0}</span>
          </span>
        )}
        <span className={`step-status step-status-${awaiting ? 'awaiting' : row.status}`} data-testid="activity-status">
          {awaiting
            ? t('stream.status.awaiting')
            : row.status === 'running'
              ? t('stream.status.running')
              : row.status === 'error'
                ? t('stream.status.error')
                : t('stream.status.ok')}
          {row.exitCode !== null && row.exitCode !== undefined && ` (${t('stream.exit', { code: row.exitCode })})`}
        </span>
        {ms !== null && <span className="muted small">{duration(t, ms)}</span>}
      </summary>
      <div className="step-body">
        {row.diffText ? (
          <Diff text={row.diffText} />
        ) : row.outputHead ? (
          <>
            <p className="muted small step-label">{t('stream.output')}</p>
            <pre className="command small" data-testid="activity-output">
              {row.outputHead}
            </pre>
          </>
        ) : (
          <p className="muted small">{t(row.kind === 'edit' || row.kind === 'write' ? 'stream.noDiff' : 'stream.noOutput')}</p>
        )}
        <Source row={row} />
      </div>
    </details>
  );
}

function Diff({ text }: { text: string }) {
  return (
    <pre className="command small diff" data-testid="activity-diff">
      {diffLines(text).map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines of one stored diff, never reordered
        <span key={i} className={`diff-${l.kind}`} data-line={l.kind}>{`${l.text}\n`}</span>
      ))}
    </pre>
  );
}

/**
 * Truth rule: every activity line names the journal record and the agent event it rests on — on
 * demand, since record ids under every step are noise to a person reading the turn.
 */
function Source({ row }: { row: ActivityRow }) {
  const { t } = useI18n();
  return (
    <details className="step-source-toggle" data-testid="activity-source-toggle">
      <summary className="muted small">{t('stream.showSource')}</summary>
      <p className="muted small step-source" data-testid="activity-source">
        {t('stream.source', { record: row.sourceRecordId, offset: row.sourceOffset, seq: row.eventSeq })}
      </p>
    </details>
  );
}

/** A working session's current activity, one line ("Running `npm test` · 3 min · 5 steps"). */
export function ActivityLine({ activity, now }: { activity: CurrentActivityView; now: number }) {
  const { t } = useI18n();
  return (
    <span className="small activity-line" data-testid="activity-line">
      {activityLine(t, activity, now).map((p, i) => {
        // The pieces of one line, fixed by the template: their position is their identity.
        const key = `${i}:${p.code ? 'c' : 't'}`;
        return p.code ? (
          <code key={key} className="line-code">
            {p.text}
          </code>
        ) : (
          <span key={key}>{p.text}</span>
        );
      })}
    </span>
  );
}
