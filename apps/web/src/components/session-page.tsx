'use client';
import { waitingDialog } from '@bria/core/domain';
import { READ_JOURNAL_MAX_TURNS } from '@bria/core/protocol';
import { useQuery } from '@tanstack/react-query';
import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import Link from 'next/link';
import { contextText, isWorking } from './activity-stream.ts';
import { Conversation, QueueTable } from './conversation.tsx';
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
  const chatRef = useStickToBottom(composer);
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
          </p>
        </div>
        <StateBadge state={s.state} wait={promptWait(prompts.data?.prompts)} desk={s.desk} />
        <div className="session-actions">
          <LifecycleButtons session={s} dialog={dialog !== null} nodeOnline={node.online} nodeName={node.name} />
        </div>
      </div>
      {dialog && (
        <div className="warning" role="status" data-testid="waiting-dialog">
          <strong>{t('session.waitingDialog')}</strong>
          <pre className="small">{dialog}</pre>
        </div>
      )}
      <div ref={chatRef}>
        <Conversation
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
          onEarlier={limit < JOURNAL_MAX ? () => setLimit((l) => Math.min(JOURNAL_MAX, l + JOURNAL_PAGE)) : undefined}
        />
        {/* What the agent asks you comes where the newest turn is, right above the composer. */}
        {prompts.data && <PromptPanel prompts={prompts.data.prompts} executor={s.executor} />}
      </div>
      <div ref={composer} className={open ? 'composer' : 'composer-end'}>
        {open && <MessageBox sessionId={s.id} accepting={s.acceptsMessages} items={conversation.items} />}
      </div>
      {open && <TerminalDetails sessionId={s.id} dialogOpen={promptWait(prompts.data?.prompts) !== null || dialog !== null} />}
      <details className="card session-details" data-testid="session-details">
        <summary>{t('session.details')}</summary>
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
          {!usage && usageHistory.length === 0 ? (
            <p className="muted">{t('usage.empty')}</p>
          ) : (
            <>
              <dl className="facts">
                <div>
                  <dt>{t('usage.input')}</dt>
                  <dd>{fmt.format(num(usage?.inputTokens) ?? 0)}</dd>
                </div>
                <div>
                  <dt>{t('usage.output')}</dt>
                  <dd>{fmt.format(num(usage?.outputTokens) ?? 0)}</dd>
                </div>
                <div>
                  <dt>{t('usage.context')}</dt>
                  <dd>{ctx === null ? '—' : ctx <= 1 ? `${Math.round(ctx * 100)} %` : fmt.format(ctx)}</dd>
                </div>
              </dl>
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
 * answer, a question) while its end was on screen, the composer is scrolled back to the bottom
 * edge, so the latest answer sits right above it. Someone reading older turns, or the details
 * below, is left where they are. Returns the ref for the growing part.
 */
function useStickToBottom(composer: RefObject<HTMLDivElement | null>): (el: HTMLDivElement | null) => void {
  const endOnScreen = useRef(true);
  const chat = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    const onScroll = () => {
      const end = chat.current?.getBoundingClientRect().bottom;
      if (end !== undefined) endOnScreen.current = end >= 0 && end <= window.innerHeight + 160;
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  const observer = useRef<ResizeObserver | null>(null);
  return useCallback(
    (el: HTMLDivElement | null) => {
      observer.current?.disconnect();
      chat.current = el;
      if (!el) return;
      observer.current = new ResizeObserver(() => {
        if (!endOnScreen.current) return;
        // The composer is sticky (always "in view"), so the page is scrolled by numbers: the chat's
        // end just above the composer. Only ever down.
        const top = el.getBoundingClientRect().bottom + window.scrollY - (window.innerHeight - (composer.current?.offsetHeight ?? 0));
        if (top > window.scrollY + 1) window.scrollTo({ top });
      });
      observer.current.observe(el);
    },
    [composer],
  );
}
