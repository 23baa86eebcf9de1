'use client';
import { SchedulePanel } from './schedule-panel.tsx';
import { PushOffer, SessionPushMute, usePushVisibility } from './push/session-push.tsx';
import { waitingDialog } from '@bria/core/domain';
import { READ_JOURNAL_MAX_TURNS } from '@bria/core/protocol';
import { useQuery } from '@tanstack/react-query';
import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import Link from 'next/link';
import { awaitingSteps, contextText, isWorking } from './activity-stream.ts';
import { ChangesDetails } from './changes-panel.tsx';
import { Conversation } from './conversation.tsx';
import { heldByOf } from './queue-line.ts';
import { QueueTable } from './queue-table.tsx';
import { useDraft } from './draft.tsx';
import { TerminalView } from './terminal-view.tsx';
import { EvidenceTimeline } from './evidence-timeline.tsx';
import { ChoiceFacts } from './session-choices.tsx';
import { useI18n } from './i18n-context.tsx';
import { LifecycleButtons } from './lifecycle-buttons.tsx';
import { MessageBox } from './message-box.tsx';
import { PromptPanel } from './prompt-panel.tsx';
import { promptWait } from './prompt-text.ts';
import { StateBadge, lifetimeLeft, sessionTitle, useNow, When } from './session-bits.tsx';
import { Skeleton } from './skeleton.tsx';
import { useTRPC } from './trpc.ts';
import { UsageChart } from './usage-chart.tsx';
import { SpendHoldNotice } from './usage/spend-hold.tsx';
import { costText, TokenKinds } from './usage/usage-page.tsx';
import { useErrorText } from './use-error-text.ts';

const JOURNAL_PAGE = 30;
/** One read returns at most this many turns (the protocol's bound). */
const JOURNAL_MAX = READ_JOURNAL_MAX_TURNS;
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * One session, read like a chat: the conversation is the page, newest at the bottom next to a
 * composer that stays in view; facts, usage, the queue and the evidence timeline are one click away.
 */
export function SessionPage({ sessionId }: { sessionId: string }) {
  const { t, locale } = useI18n();
  const trpc = useTRPC();
  const errorText = useErrorText();
  const q = useQuery(trpc.sessions.get.queryOptions({ sessionId }));
  // A running step shows how long it has run: the clock ticks faster while a turn is worked on.
  const now = useNow(q.data && isWorking(q.data.session.state) ? 5_000 : 30_000);
  const prompts = useQuery(trpc.sessions.prompts.queryOptions({ sessionId }));
  // The journal is read on the node (one command per read), so it is not reloaded on every live
  // change: only when the session or a message outcome changed (the signature below), or on demand.
  const [limit, setLimit] = useState(JOURNAL_PAGE);
  const composer = useRef<HTMLDivElement>(null);
  const journal = useQuery(
    trpc.sessions.journal.queryOptions({ sessionId, limit }, { staleTime: Number.POSITIVE_INFINITY, retry: false, placeholderData: (prev) => prev }),
  );
  const signature = q.data
    ? `${q.data.session.version}|${q.data.node.online}|${q.data.conversation.total}|${q.data.conversation.items.map((m) => m.status).join(',')}`
    : '';
  const seen = useRef('');
  const refetchJournal = journal.refetch;
  useEffect(() => {
    if (!signature || seen.current === signature) return;
    const first = seen.current === '';
    seen.current = signature;
    if (!first) void refetchJournal();
  }, [signature, refetchJournal]);
  const follow = useFollowNewest(composer);
  usePushVisibility(sessionId);
  const draft = useDraft(sessionId, q.data !== undefined && q.data.session.state !== 'Archived');
  if (q.isPending) return <Skeleton lines={6} />;
  // A failed reload keeps what is on screen (the reconnecting banner says why); only a first load shows the error.
  if (q.isError && !q.data)
    return (
      <p role="alert" className="error">
        {errorText(q.error)}
      </p>
    );
  const { session: s, node, conversation, evidence, usage, usageHistory, activity } = q.data;
  const fmt = new Intl.NumberFormat(locale);
  const ctx = num(usage?.contextWindowUsed);
  const dialog = waitingDialog(s.state, evidence);
  const open = s.state !== 'Archived' && s.state !== 'ResumeFailed';

  return (
    <div className="session">
      <p className="crumbs">
        <Link href={`/nodes/${node.id}`}>← {t('session.back', { node: node.name })}</Link>
      </p>
      <div className="section-head session-head">
        <div className="grow">
          <h1>{sessionTitle(s, t)}</h1>
          <p className="muted small">
            <span data-testid="session-computer">{node.name}</span> · {t(`executor.${s.executor}`)} · <span className="mono">{s.folder}</span>
            {s.worktree && (
              <>
                {' · '}
                <span className="mono" data-testid="session-branch">
                  {t('session.branch', { branch: s.worktree.branch })}
                </span>
              </>
            )}
          </p>
        </div>
        <StateBadge state={s.state} wait={promptWait(prompts.data?.prompts)} desk={s.desk} />
        <div className="session-actions">
          <LifecycleButtons session={s} dialog={dialog !== null} nodeOnline={node.online} nodeName={node.name} part="rest" onResumed={follow.jump} />
        </div>
      </div>
      {dialog && (
        <div className="warning" role="status" data-testid="waiting-dialog">
          <strong>{t('session.waitingDialog')}</strong>
          <pre className="small">{dialog}</pre>
        </div>
      )}
      <SpendHoldNotice hold={q.data.spend.hold} warning={q.data.spend.warning} />
      <div ref={follow.chatRef}>
        <Conversation
          sessionId={s.id}
          journal={journal.data}
          journalLoading={journal.isPending}
          items={conversation.items}
          total={conversation.total}
          activity={activity}
          now={now}
          discovered={s.launchSource === 'discovered'}
          open={open}
          working={isWorking(s.state)}
          draft={draft}
          awaiting={awaitingSteps(activity, prompts.data?.prompts)}
          queueWait={q.data.queueWait}
          heldBy={heldByOf(dialog, prompts.data?.prompts)}
          onEarlier={limit < JOURNAL_MAX ? () => setLimit((l) => Math.min(JOURNAL_MAX, l + JOURNAL_PAGE)) : undefined}
        />
        {/* What the agent asks you comes where the newest turn is, right above the composer. */}
        {prompts.data && <PromptPanel prompts={prompts.data.prompts} executor={s.executor} />}
        <PushOffer />
      </div>
      {/* Sticky at the bottom: Stop and "Jump to newest" stay in reach however long the conversation is. */}
      <div ref={composer} className={open || !follow.following ? 'composer' : 'composer-end'}>
        {(!follow.following || s.state === 'Running') && (
          <div className="composer-bar" data-testid="composer-bar">
            {!follow.following && (
              <button type="button" className="btn btn-small" onClick={follow.jump} data-testid="jump-newest">
                ↓ {t('conv.jumpNewest')}
              </button>
            )}
            <LifecycleButtons session={s} part="stop" />
          </div>
        )}
        {open && <MessageBox sessionId={s.id} accepting={s.acceptsMessages} items={conversation.items} onSent={follow.jump} running={s.state === 'Running'} />}
      </div>
      {s.state !== 'ResumeFailed' && <SchedulePanel sessionId={s.id} />}
      {open && <TerminalDetails sessionId={s.id} dialogOpen={promptWait(prompts.data?.prompts) !== null || dialog !== null} />}
      <ChangesDetails sessionId={s.id} worktree={s.worktree} open={open} />
      <details className="card session-details" data-testid="session-details">
        <summary>{t('session.details')}</summary>
        <SessionPushMute sessionId={s.id} />
        <dl className="facts">
          <div>
            <dt>{t('session.executor')}</dt>
            <dd>{t(`executor.${s.executor}`)}</dd>
          </div>
          <ChoiceFacts executor={s.executor} permissionMode={s.permissionMode} model={s.model} />
          <div>
            <dt>{t('session.lifetimeLeft')}</dt>
            <dd data-testid="lifetime-left">{lifetimeLeft(s, now, t)}</dd>
          </div>
          <div>
            <dt>{t('session.lastActivity')}</dt>
            <dd>
              <When iso={s.lastActivityAt} locale={locale} now={now} />
            </dd>
          </div>
          <div>
            <dt>{t('session.created')}</dt>
            <dd>
              <When iso={s.createdAt} locale={locale} now={now} />
            </dd>
          </div>
          <div>
            <dt>{t('session.context')}</dt>
            <dd data-testid="context-use">{s.context ? contextText(t, s.context, locale) : '—'}</dd>
          </div>
          <div>
            <dt>{t('usage.compactions')}</dt>
            <dd data-testid="context-compactions">{s.context ? fmt.format(s.context.compactions) : '—'}</dd>
          </div>
          <div className="span-2">
            <dt>{t('session.nativeId')}</dt>
            <dd className="mono small">{s.nativeSessionId ?? '—'}</dd>
          </div>
        </dl>
        <section aria-labelledby="usage-title" className="block">
          <h2 id="usage-title">{t('usage.title')}</h2>
          {!usage && usageHistory.length === 0 && q.data.spend.turns === 0 ? (
            <p className="muted">{t('usage.empty')}</p>
          ) : (
            <>
              {/* The session's totals from every turn's journal counts, cached tokens apart, with the estimated cost. */}
              <dl className="facts" data-testid="session-spend">
                <div>
                  <dt>{t('spend.turns')}</dt>
                  <dd>{fmt.format(q.data.spend.turns)}</dd>
                </div>
                <div>
                  <dt>{t('spend.cost')}</dt>
                  <dd>{costText(q.data.spend, locale)}</dd>
                </div>
                <div>
                  <dt>{t('usage.context')}</dt>
                  <dd>{ctx === null ? '—' : ctx <= 1 ? `${Math.round(ctx * 100)} %` : fmt.format(ctx)}</dd>
                </div>
              </dl>
              <TokenKinds tokens={q.data.spend.tokens} />
              <UsageChart points={usageHistory} />
            </>
          )}
        </section>
        <QueueTable items={conversation.items} />
        <EvidenceTimeline items={evidence} />
      </details>
    </div>
  );
}

/** The live terminal, connected only while unfolded (no stream for a page that does not show it). */
function TerminalDetails({ sessionId, dialogOpen }: { sessionId: string; dialogOpen: boolean }) {
  const { t } = useI18n();
  const [shown, setShown] = useState(false);
  return (
    <details className="card" data-testid="terminal" onToggle={(e) => setShown(e.currentTarget.open)}>
      <summary>{t('terminal.title')}</summary>
      {shown && <TerminalView sessionId={sessionId} dialogOpen={dialogOpen} />}
    </details>
  );
}

/**
 * A chat keeps its newest part in view: when the conversation grows (a sent message, a step, the
 * answer, a question) while its end was on screen, the page is scrolled so the end sits right above
 * the composer. Someone who scrolled up to read older turns, or down to the details, is left where
 * they are and offered "Jump to newest"; sending a message, Resume or that button follow again.
 * `following` is what the page offers; `jump` follows again now.
 */
function useFollowNewest(composer: RefObject<HTMLDivElement | null>): {
  chatRef: (el: HTMLDivElement | null) => void;
  following: boolean;
  jump: () => void;
} {
  const [following, setFollowing] = useState(true);
  const followRef = useRef(true);
  const chat = useRef<HTMLDivElement | null>(null);
  const set = useCallback((v: boolean) => {
    followRef.current = v;
    setFollowing(v);
  }, []);
  // Where the page must be for the chat's end to sit just above the sticky composer.
  const endTop = useCallback(() => {
    const el = chat.current;
    return el ? el.getBoundingClientRect().bottom + window.scrollY - (window.innerHeight - (composer.current?.offsetHeight ?? 0)) : null;
  }, [composer]);
  useEffect(() => {
    const onScroll = () => {
      const top = endTop();
      if (top === null) return;
      // The end is on screen (within a little slack) when the page is at or a bit past it.
      const onScreen = window.scrollY >= top - 160 && chat.current !== null && chat.current.getBoundingClientRect().bottom >= 0;
      if (onScreen !== followRef.current) set(onScreen);
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, [endTop, set]);
  const observer = useRef<ResizeObserver | null>(null);
  const composerSeen = useRef<HTMLDivElement | null>(null);
  const chatRef = useCallback(
    (el: HTMLDivElement | null) => {
      observer.current?.disconnect();
      composerSeen.current = null;
      chat.current = el;
      if (!el) return;
      observer.current = new ResizeObserver(() => {
        if (!followRef.current) return;
        // Only ever down while following: a shorter chat leaves the page where it is.
        const top = endTop();
        if (top !== null && top > window.scrollY + 1) window.scrollTo({ top });
      });
      observer.current.observe(el);
    },
    [endTop],
  );
  // The composer grows too (the bar with Stop appears while a turn runs): the end must stay above it.
  useEffect(() => {
    const el = composer.current;
    if (!el || el === composerSeen.current || !observer.current) return;
    if (composerSeen.current) observer.current.unobserve(composerSeen.current);
    composerSeen.current = el;
    observer.current.observe(el);
  });
  const jump = useCallback(() => {
    set(true);
    const top = endTop();
    if (top !== null) window.scrollTo({ top: Math.max(0, top) });
  }, [endTop, set]);
  return { chatRef, following, jump };
}
