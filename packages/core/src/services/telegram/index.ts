/**
 * What the Telegram bot needs from core: chat state (selected node, card, flow, active session per
 * node), its read models, and the `telegram` outbox channel (the one claim, lease and finish used by
 * every sender, the bot's own rows, and the one payload schema). The Prisma code is in the
 * repositories (`db/repos/telegram-*.ts`, `outbox-claim.ts`, `outbox-payload.ts`); the bot passes the
 * `Db` handle it was given and never touches Prisma itself. The bot does not use tRPC:
 * `createCaller` needs a dashboard session and CSRF token that a bot has no way to hold.
 */
export { getActiveSessionId, setActiveSessionId } from '../../db/repos/sessions.ts';
export { activeSessionView, rememberedSessionView } from './chat-sessions.ts';
export {
  bumpCardGeneration,
  type CardBehind,
  type ChatDto,
  ensureChat,
  getChat,
  listCardsBehind,
  noteCardShown,
  readResumeReturn,
  type ResumeReturn,
  setCardMessage,
  updateChat,
} from '../../db/repos/telegram-chats.ts';
export {
  closedByLifetime,
  getNodeView,
  getSessionView,
  lastEvidenceId,
  listArchived,
  listNodeViews,
  listOpenSessionViews,
  type NodeView,
  OPEN_SESSION_STATES,
  messageBySourceKey,
  queuePosition,
  queueLength,
  readSettingsView,
  recentFolders,
  resumeAskedSince,
  type SessionView,
} from '../../db/repos/telegram-views.ts';
export {
  type ClaimedRow,
  claimOutbox,
  markOutboxFailed,
  markOutboxRetry,
  markOutboxSent,
  outboxPartIds,
  recordOutboxPart,
  releaseOutbox,
} from '../../db/repos/outbox-claim.ts';
export { sessionChangeWakeUp, telegramOutboxWakeUp, type WakeUp } from './wake-ups.ts';
export { type BotOutboxPayload, type DeliveryPayload, zBotOutboxPayload, zDeliveryPayload } from '../../db/repos/outbox-payload.ts';
export {
  enqueueBotRow,
  openResumeStatus,
  releaseBotRow,
  releaseHeldFinal,
  rewriteBotRow,
  sentMessageIds,
  settleResumeStatus,
  TELEGRAM_CHANNEL,
  withdrawBotRow,
} from '../../db/repos/telegram-outbox.ts';
