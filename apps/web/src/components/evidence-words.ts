import { SESSION_EVENT_TYPES, type SessionEventType } from '@bria/core/domain';
import type { Locale } from '../i18n/catalog.ts';

/**
 * Evidence rows the engine and services record besides the state machine's own events
 * (grep `recordEvidence` in packages/core). `refused:<agent event>` rows are worded by `evidenceWords`.
 */
export const OTHER_EVIDENCE_EVENTS = [
  'create',
  'session_ready',
  'blocked_on_prompt',
  'turn_accepted',
  'turn_completed',
  'turn_api_error',
  'turn_interrupted',
  'usage',
  'permission_request',
  'permission_resolved',
  'permission_ended',
  'permission_answered',
  'native_id_replaced',
  'delivery_unknown',
  'delivery_not_typed',
  'command_interrupted',
  'compact_requested',
  'compact_done',
  'compact_failed',
  'attachment_failed',
  'evidence_unknown',
] as const;
export type EvidenceEvent = SessionEventType | (typeof OTHER_EVIDENCE_EVENTS)[number];
export const EVIDENCE_EVENTS: readonly EvidenceEvent[] = [...SESSION_EVENT_TYPES, ...OTHER_EVIDENCE_EVENTS];

const en: Record<EvidenceEvent, string> = {
  create: 'You started the session.',
  cli_ready: 'The agent is ready on the computer.',
  session_ready: 'The agent is ready on the computer.',
  blocked_on_prompt: 'The agent shows a question on the computer and waits.',
  resume_confirmed: 'The computer reopened the conversation.',
  resume_failed: 'The conversation could not be reopened.',
  turn_started: 'The agent started working on a message.',
  turn_accepted: 'The agent took the message.',
  turn_completed: 'The agent finished its answer.',
  turn_api_error: 'The answer ended with an error from the model service.',
  turn_interrupted: 'The answer was stopped.',
  interrupt_confirmed: 'The agent confirmed the stop.',
  process_exited_verified: "The agent's process has ended (checked on the computer).",
  observer_lost: 'Bria lost sight of the agent for a moment; the agent keeps running.',
  reattached: 'Bria found the same agent again.',
  reattach_refused: 'Bria could not confirm it was the same agent.',
  work_drained: 'All accepted messages have an outcome.',
  archive_committed: 'The session was saved to the archive.',
  archive_commit_failed: 'Saving to the archive failed; Bria tries again.',
  node_lost: 'The computer went offline.',
  node_returned: 'The computer is back online.',
  final_save_failed: 'Saving an answer failed; Bria tries again.',
  final_save_recovered: 'The answer was saved after all.',
  resume_failure_reported: 'You were told why reopening failed.',
  stop_requested: 'You asked to stop the answer.',
  close_requested: 'You asked to close the session.',
  resume_requested: 'You asked to resume the session.',
  lifetime_expired: "The session's time ran out.",
  recovery_retry_due: 'Bria tried reconnecting to the agent again.',
  final_save_retry_due: 'Bria tried saving the answer again.',
  stop_drain_expired: 'The stop took longer than expected; Bria asked again.',
  stop_unresolved: 'The stop was never confirmed; Bria stopped waiting. What became of the message is unknown.',
  archive_commit_retry_due: 'Bria tried saving to the archive again.',
  resume_timed_out: 'The computer did not answer the resume in time.',
  close_retry_due: 'Bria asked the computer to close the agent again.',
  usage: 'The agent reported its token use.',
  permission_request: 'The agent asked for your permission.',
  permission_resolved: 'The permission request ended.',
  permission_ended: 'The permission request ended without an answer.',
  permission_answered: "You answered the agent's request.",
  native_id_replaced: 'The agent started a fresh conversation file.',
  delivery_unknown: 'It is unclear whether a message reached the agent; it was not sent again.',
  delivery_not_typed: 'A message could not be typed into the agent.',
  command_interrupted: 'A request to the computer was cut off.',
  compact_requested: 'You asked to compact the context.',
  compact_done: 'The context was compacted.',
  compact_failed: 'Compacting the context failed.',
  attachment_failed: 'An attachment could not be passed on.',
  evidence_unknown: 'The computer reported something Bria could not read.',
};

const ru: Record<EvidenceEvent, string> = {
  create: 'Вы запустили сессию.',
  cli_ready: 'Агент готов на компьютере.',
  session_ready: 'Агент готов на компьютере.',
  blocked_on_prompt: 'Агент показывает вопрос на компьютере и ждёт.',
  resume_confirmed: 'Компьютер снова открыл разговор.',
  resume_failed: 'Разговор не удалось открыть снова.',
  turn_started: 'Агент начал работу над сообщением.',
  turn_accepted: 'Агент принял сообщение.',
  turn_completed: 'Агент закончил ответ.',
  turn_api_error: 'Ответ прервался ошибкой сервиса модели.',
  turn_interrupted: 'Ответ остановлен.',
  interrupt_confirmed: 'Агент подтвердил остановку.',
  process_exited_verified: 'Процесс агента завершён (проверено на компьютере).',
  observer_lost: 'Bria ненадолго потеряла агента из виду; агент продолжает работать.',
  reattached: 'Bria снова нашла того же агента.',
  reattach_refused: 'Bria не смогла подтвердить, что это тот же агент.',
  work_drained: 'У всех принятых сообщений есть итог.',
  archive_committed: 'Сессия сохранена в архив.',
  archive_commit_failed: 'Сохранить в архив не удалось; Bria попробует снова.',
  node_lost: 'Компьютер вышел из сети.',
  node_returned: 'Компьютер снова в сети.',
  final_save_failed: 'Сохранить ответ не удалось; Bria попробует снова.',
  final_save_recovered: 'Ответ всё же сохранён.',
  resume_failure_reported: 'Вам сообщили, почему не удалось открыть разговор.',
  stop_requested: 'Вы попросили остановить ответ.',
  close_requested: 'Вы попросили закрыть сессию.',
  resume_requested: 'Вы попросили продолжить сессию.',
  lifetime_expired: 'Время сессии истекло.',
  recovery_retry_due: 'Bria снова попробовала подключиться к агенту.',
  final_save_retry_due: 'Bria снова попробовала сохранить ответ.',
  stop_drain_expired: 'Остановка заняла больше времени, чем ожидалось; Bria попросила ещё раз.',
  stop_unresolved: 'Остановка так и не подтвердилась; Bria перестала ждать. Что стало с сообщением, неизвестно.',
  archive_commit_retry_due: 'Bria снова попробовала сохранить в архив.',
  resume_timed_out: 'Компьютер не ответил вовремя на продолжение.',
  close_retry_due: 'Bria снова попросила компьютер закрыть агента.',
  usage: 'Агент сообщил расход токенов.',
  permission_request: 'Агент попросил вашего разрешения.',
  permission_resolved: 'Запрос разрешения завершён.',
  permission_ended: 'Запрос разрешения завершился без ответа.',
  permission_answered: 'Вы ответили на запрос агента.',
  native_id_replaced: 'Агент начал новый файл разговора.',
  delivery_unknown: 'Неясно, дошло ли сообщение до агента; повторно оно не отправлялось.',
  delivery_not_typed: 'Сообщение не удалось ввести в агента.',
  command_interrupted: 'Запрос к компьютеру прервался.',
  compact_requested: 'Вы попросили сжать контекст.',
  compact_done: 'Контекст сжат.',
  compact_failed: 'Сжать контекст не удалось.',
  attachment_failed: 'Вложение не удалось передать.',
  evidence_unknown: 'Компьютер сообщил то, что Bria не смогла прочитать.',
};

export const EVIDENCE_WORDS: Record<Locale, Record<EvidenceEvent, string>> = { en, ru };

const SET_ASIDE: Record<Locale, (what: string) => string> = {
  en: (what) => `An outdated report from the computer was set aside (${what}).`,
  ru: (what) => `Устаревшее сообщение от компьютера отложено (${what}).`,
};
const OTHER: Record<Locale, (what: string) => string> = {
  en: (what) => `Recorded: ${what}.`,
  ru: (what) => `Записано: ${what}.`,
};

const readable = (name: string) => name.replace(/[_:.-]+/g, ' ').trim() || '?';
const isKnown = (name: string): name is EvidenceEvent => Object.hasOwn(en, name);

/** A sentence for an evidence event in the page's language; unknown names still read as words. */
export function evidenceWords(event: string, locale: Locale): string {
  if (isKnown(event)) return EVIDENCE_WORDS[locale][event];
  if (event.startsWith('refused:')) {
    const inner = event.slice('refused:'.length);
    const what = isKnown(inner) ? EVIDENCE_WORDS[locale][inner].replace(/\.$/, '') : readable(inner);
    return SET_ASIDE[locale](what);
  }
  return OTHER[locale](readable(event));
}
