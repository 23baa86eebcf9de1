'use client';
import { Fragment } from 'react';
import type { AnyKey } from '../i18n/catalog.ts';
import { ActivityList, LooseActivity } from './activity-rows.tsx';
import { DraftBubble, type DraftView } from './draft.tsx';
import { type ActivityRow, type PlacedActivity, placeActivity, storedAnchors } from './activity-stream.ts';
import { useI18n } from './i18n-context.tsx';
import { Markdown } from './markdown.tsx';
import {
  CancelledMessage,
  ChangeNoticeLine,
  EditedOriginal,
  lineOf,
  QueueControls,
  type QueueFacts,
  QueueStateTag,
  useChangeNotices,
} from './message-change.tsx';
import { type HeldBy, placeCancelled, TAIL } from './queue-line.ts';
import type { ConversationItem, JournalView, QueueWait } from './types.ts';

const FAILED = new Set(['terminal_failed', 'failed', 'unknown']);
/** Not in any journal yet: waiting in Bria's queue, or being handed to the CLI. */
const IN_QUEUE = new Set(['pending', 'leased', 'accepted']);
type JournalTurn = Extract<JournalView, { available: true }>['turns'][number];

/**
 * The conversation as the CLI recorded it (the native journal, read on the node), with Bria's
 * stored turns as the fallback when the journal cannot be read (and while it is being read).
 * Under each user message, the steps of its turn (`activity`, from `sessions.get`, so they follow
 * the live stream even while the journal itself is not re-read).
 */
export function Conversation(props: {
  sessionId: string;
  journal: JournalView | undefined;
  journalLoading: boolean;
  items: ConversationItem[];
  total: number;
  activity: readonly ActivityRow[];
  now: number;
  discovered: boolean;
  open: boolean;
  /** A turn runs now: the newest unanswered turn says so instead of waiting silently. */
  working?: boolean;
  /** The answer being written for the running turn (live.draft), until its final arrives. */
  draft?: DraftView | null;
  /** Running steps held by a request that waits for an answer (`awaitingSteps`). */
  awaiting?: ReadonlySet<string>;
  /** What the oldest queued message waits for (`sessions.get` queueWait). */
  queueWait?: QueueWait | null;
  /** The dialog of the CLI that holds the queue now, if one is open. */
  heldBy?: HeldBy;
  onEarlier?: () => void;
}) {
  const { t } = useI18n();
  const { journal } = props;
  const notices = useChangeNotices();
  const facts: QueueFacts = { sessionId: props.sessionId, items: props.items, wait: props.queueWait ?? null, heldBy: props.heldBy ?? null, ...notices };
  return (
    <section aria-labelledby="conv-title" className="block">
      <h2 id="conv-title">{t('conv.title')}</h2>
      {journal?.available ? (
        <JournalTurns
          turns={journal.turns}
          total={journal.totalTurns}
          source={journal.source}
          open={props.open}
          working={props.working ?? false}
          items={props.items}
          activity={props.activity}
          now={props.now}
          draft={props.draft ?? null}
          awaiting={props.awaiting}
          facts={facts}
          onEarlier={journal.offset > 0 ? props.onEarlier : undefined}
        />
      ) : (
        <>
          <p
            className="notice notice-warn small"
            role="status"
            data-testid="conv-fallback"
            data-reason={journal?.reason ?? (props.journalLoading ? 'loading' : 'failed')}
          >
            {journal
              ? t(`conv.unavailable.${journal.reason}` as AnyKey, { detail: journal.detail ?? '' })
              : props.journalLoading
                ? t('conv.reading')
                : t('conv.unavailable.failed', { detail: t('error.generic') })}
          </p>
          {props.discovered && <p className="muted small">{t('conv.discovered')}</p>}
          <StoredTurns
            items={props.items}
            total={props.total}
            activity={props.activity}
            now={props.now}
            working={props.working ?? false}
            draft={props.draft ?? null}
            awaiting={props.awaiting}
            facts={facts}
          />
        </>
      )}
    </section>
  );
}

const MARK: Partial<Record<JournalTurn['state'], AnyKey>> = {
  interrupted: 'conv.mark.interrupted',
  api_error: 'conv.mark.api_error',
  dropped: 'conv.mark.dropped',
  unknown: 'conv.mark.unknown',
};

function JournalTurns({
  turns,
  total,
  source,
  open,
  working,
  items,
  activity,
  now,
  draft,
  awaiting,
  facts,
  onEarlier,
}: {
  turns: JournalTurn[];
  total: number;
  source: 'native' | 'archive';
  open: boolean;
  working: boolean;
  items: ConversationItem[];
  activity: readonly ActivityRow[];
  now: number;
  draft: DraftView | null;
  awaiting: ReadonlySet<string> | undefined;
  facts: QueueFacts;
  onEarlier: (() => void) | undefined;
}) {
  const { t } = useI18n();
  // Messages still in Bria's queue (or on their way into the CLI) are in no journal yet: they follow
  // the turns, each saying where it is; cancelled ones never reach a journal and stay where they were sent.
  const inJournal = new Set(turns.flatMap((turn) => (turn.message ? [turn.message.id] : [])));
  const cancelled = placeCancelled(
    turns.map((turn) => ({ ref: turn.nativeRef, messageId: turn.message?.id ?? null })),
    items,
    total === turns.length,
  );
  // After the last turn, in the order sent: what is still queued and what was cancelled after it.
  const queued = [...items.filter((m) => IN_QUEUE.has(m.status) && !inJournal.has(m.id)), ...(cancelled.get(TAIL) ?? [])].sort((a, b) => a.seq - b.seq);
  const byId = new Map(items.map((m) => [m.id, m]));
  // A draft belongs under its message's turn; a turn the journal does not show yet gets its own line.
  const draftItem = draft ? items.find((m) => m.id === draft.messageId && m.finalText === null) : undefined;
  const draftTurn = draft ? turns.find((turn) => turn.message?.id === draft.messageId) : undefined;
  const looseDraft = draft && draftItem && !draftTurn ? draft : null;
  const arrived = new Map(items.map((m) => [m.id, m.createdAt]));
  const placed = placeActivity(
    turns.map((turn) => ({
      key: turn.nativeRef,
      messageIds: turn.message ? [turn.message.id] : [],
      nativeTurnId: turn.nativeRef,
      at: (turn.message && arrived.get(turn.message.id)) ?? null,
    })),
    activity,
  );
  return (
    <>
      <p className="muted small" data-testid="conv-source" data-source={source}>
        {t(source === 'native' ? 'conv.fromJournal' : 'conv.fromArchive')}
      </p>
      {total > turns.length && (
        <p className="muted small">
          {t('conv.olderTurns', { shown: turns.length, total })}
          {onEarlier && (
            <>
              {' '}
              <button type="button" className="btn btn-small" onClick={onEarlier}>
                {t('conv.showEarlier')}
              </button>
            </>
          )}
        </p>
      )}
      {turns.length === 0 && <p className="muted">{t('conv.emptyJournal')}</p>}
      <ol className="conversation" data-testid="conversation" data-source="journal">
        <Loose placed={placed} after="" items={items} now={now} awaiting={awaiting} />
        {cancelled.get('')?.map((m) => (
          <CancelledMessage key={m.id} message={m} facts={facts} />
        ))}
        {turns.map((turn, i) => {
          const last = i === turns.length - 1;
          const ended = turn.message && FAILED.has(turn.message.status) ? turn.message : null;
          const mark = MARK[turn.state];
          const own = turn.message ? byId.get(turn.message.id) : undefined;
          return (
            <Fragment key={turn.nativeRef}>
              <li className="turn" data-testid="turn" data-state={turn.state} data-message-id={own?.id}>
                <div className="bubble bubble-user">
                  <p className="who">
                    {t('conv.you')}
                    {turn.message ? '' : <span className="muted"> · {t('conv.outsideBria')}</span>}
                    {own && <QueueStateTag message={own} line={lineOf(own, facts)} />}
                  </p>
                  <div className="plain">{turn.prompt}</div>
                  {own && <EditedOriginal message={own} />}
                </div>
                {own && <ChangeNoticeLine messageId={own.id} facts={facts} />}
                <ActivityList rows={placed.byTurn.get(turn.nativeRef) ?? []} now={now} awaiting={awaiting} />
                {draft && turn === draftTurn && turn.final === undefined && draftItem && <DraftBubble draft={draft} />}
                {turn.final !== undefined && (
                  <div className="bubble bubble-agent" data-testid="final">
                    <p className="who">{t('conv.agent')}</p>
                    <Markdown text={turn.final} />
                  </div>
                )}
                {mark && (
                  <p className={`turn-mark${turn.state === 'interrupted' ? ' turn-mark-calm' : ''}`} role="note" data-testid="turn-failed">
                    {t(mark)}
                    {turn.detail && turn.state !== 'interrupted' ? `: ${turn.detail}` : ''}
                  </p>
                )}
                {turn.state === 'pending' && ended && (
                  // Claude writes no end record for a turn stopped before its first byte; Bria's queue knows.
                  <p className={`turn-mark${stoppedByYou(ended) ? ' turn-mark-calm' : ''}`} role="note" data-testid="turn-failed">
                    {stoppedByYou(ended)
                      ? t('conv.stopped')
                      : t('conv.mark.endedPerBria', { status: t(`status.${ended.status}` as AnyKey), detail: ended.outcomeDetail ?? '' })}
                  </p>
                )}
                {turn.state === 'pending' && !ended && (open && last ? <Working working={working} /> : <p className="muted small">{t('conv.noEnd')}</p>)}
                {turn.clipped && <p className="muted small">{t('conv.clipped')}</p>}
              </li>
              <Loose placed={placed} after={turn.nativeRef} items={items} now={now} awaiting={awaiting} />
              {cancelled.get(turn.nativeRef)?.map((m) => (
                <CancelledMessage key={m.id} message={m} facts={facts} />
              ))}
            </Fragment>
          );
        })}
        {looseDraft && (
          <li className="turn" data-testid="turn" data-state="pending">
            <DraftBubble draft={looseDraft} />
          </li>
        )}
        {queued.map((m) => {
          if (m.status === 'cancelled') return <CancelledMessage key={m.id} message={m} facts={facts} />;
          const line = lineOf(m, facts);
          return (
            <li key={m.id} className="turn turn-queued" data-testid="queued-message" data-message-id={m.id} data-state={line.state}>
              <div className="bubble bubble-user bubble-queued">
                <p className="who">
                  {t('conv.you')}
                  <QueueStateTag message={m} line={line} />
                </p>
                <div className="plain" data-testid="queued-text">
                  {m.text}
                </div>
                <EditedOriginal message={m} />
              </div>
              <QueueControls message={m} line={line} facts={facts} />
            </li>
          );
        })}
      </ol>
    </>
  );
}

/** Bria's own record of the turns sent through it (the fallback). */
function StoredTurns({
  items,
  total,
  activity,
  now,
  working,
  draft,
  awaiting,
  facts,
}: {
  items: ConversationItem[];
  total: number;
  activity: readonly ActivityRow[];
  now: number;
  working: boolean;
  draft: DraftView | null;
  awaiting: ReadonlySet<string> | undefined;
  facts: QueueFacts;
}) {
  const { t } = useI18n();
  const placed = placeActivity(storedAnchors(items), activity);
  return (
    <>
      {total > items.length && <p className="muted small">{t('conv.older', { shown: items.length, total })}</p>}
      {items.length === 0 && <p className="muted">{t('conv.empty')}</p>}
      <ol className="conversation" data-testid="conversation" data-source="stored">
        <Loose placed={placed} after="" items={items} now={now} awaiting={awaiting} />
        {items.map((m) => {
          const line = lineOf(m, facts);
          return (
            <Fragment key={m.id}>
              <li className="turn" data-testid="turn" data-status={m.status} data-message-id={m.id}>
                <div className={`bubble bubble-user${m.status === 'cancelled' ? ' bubble-cancelled' : m.status === 'pending' ? ' bubble-queued' : ''}`}>
                  <p className="who">
                    {t('conv.you')}
                    {m.mainMessageId && <span className="muted"> · {t('conv.followUp')}</span>}
                    {m.attachmentCount > 0 && <span className="muted"> · {t('conv.attachments', { count: m.attachmentCount })}</span>}
                    <QueueStateTag message={m} line={line} />
                  </p>
                  <div className="plain">{m.text}</div>
                  <EditedOriginal message={m} />
                </div>
                <ActivityList rows={placed.byTurn.get(m.id) ?? []} now={now} awaiting={awaiting} />
                {draft && draft.messageId === m.id && m.finalText === null && <DraftBubble draft={draft} />}
                {m.finalText !== null && (
                  <div className="bubble bubble-agent" data-testid="final">
                    <p className="who">{t('conv.agent')}</p>
                    <Markdown text={m.finalText} />
                  </div>
                )}
                {FAILED.has(m.status) &&
                  (m.attachmentFailure ? (
                    <p className="turn-mark turn-mark-attachment" role="note" data-testid="turn-attachment-failed">
                      {t(`queue.attachment.${m.attachmentFailure}`)}
                    </p>
                  ) : stoppedByYou(m) ? (
                    <p className="turn-mark turn-mark-calm" role="note" data-testid="turn-failed">
                      {t('conv.stopped')}
                    </p>
                  ) : (
                    <p className="turn-mark" role="note" data-testid="turn-failed">
                      {t('conv.interrupted')}: {t(`status.${m.status}` as AnyKey)}
                      {m.outcomeDetail ? ` (${m.outcomeDetail})` : ''}
                    </p>
                  ))}
                {m.finalText === null && (m.status === 'accepted' || m.status === 'leased') && <Working working={working} />}
                {m.status === 'pending' || m.status === 'cancelled' ? (
                  <QueueControls message={m} line={line} facts={facts} />
                ) : (
                  <ChangeNoticeLine messageId={m.id} facts={facts} />
                )}
              </li>
              <Loose placed={placed} after={m.id} items={items} now={now} awaiting={awaiting} />
            </Fragment>
          );
        })}
      </ol>
    </>
  );
}

/** A turn the user ended with Stop: calm words, not a failure. */
const stoppedByYou = (m: { status: string; outcomeDetail: string | null }) => m.status === 'terminal_failed' && /interrupt/.test(m.outcomeDetail ?? '');

/** The newest turn while it is worked on: its steps stream above this line. */
function Working({ working }: { working: boolean }) {
  const { t } = useI18n();
  return (
    <p className="working small" role="status" data-testid="turn-working" data-working={working}>
      {working && <span className="working-dot" aria-hidden="true" />}
      {working ? t('conv.working') : t('conv.waiting')}
    </p>
  );
}

function Loose({
  placed,
  after,
  items,
  now,
  awaiting,
}: {
  placed: PlacedActivity;
  after: string;
  items: readonly ConversationItem[];
  now: number;
  awaiting: ReadonlySet<string> | undefined;
}) {
  return (
    placed.after
      .get(after)
      ?.map((g) => <LooseActivity key={g.key} group={g} seq={items.find((m) => m.id === g.messageId)?.seq} now={now} awaiting={awaiting} />) ?? null
  );
}
