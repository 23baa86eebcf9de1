export { acceptMessage, type AcceptMessageInput, type AcceptMessageResult } from './accept-message.ts';
export { cancelMessage, editMessage, type ChangeMessageInput, type ChangedMessageDto } from './change-message.ts';
export { getActiveSession, jumpToSession, selectActiveSession, type SwitchResult } from './active-session.ts';
export { closeSession } from './close-session.ts';
export { createSession, type CreateSessionInput } from './create-session.ts';
export { getSession, listOpenSessions, listOpenSessionsAcross, type OpenSessionAcrossDto, type SessionDetailDto } from './get-session.ts';
export { listArchive, resumeRecommendations, type ArchivePage, type ListArchiveInput } from './list-archive.ts';
export { resumeSession } from './resume-session.ts';
export type { ServiceDeps, SessionDto } from './session-dto.ts';
export { type Clock, systemClock } from '../../engine/step/step-context.ts';
export { stopSession } from './stop-session.ts';
export {
  answerPrompt,
  getPromptView,
  listSessionPrompts,
  toPromptView,
  type AnswerPromptInput,
  type AnswerPromptResult,
  type PromptSource,
  type PromptView,
} from './answer-prompt.ts';
export { nodeDefaultMode, modeUnavailable } from './session-choices.ts';
export { compactSession } from './compact-session.ts';
export { terminalInput } from './terminal-input.ts';
export { listSessionsForScripts, type SessionListingItem } from './list-sessions-json.ts';
export { continueHere, type ContinueHereInput } from './continue-here.ts';
export { adoptInPlace, type AdoptInPlaceInput } from './adopt-in-place.ts';
export { cancelSchedule, createSchedule, listActiveSchedules, listSchedules, type CreateScheduleInput, type ScheduleDto } from './schedules.ts';
export { sendMessageNow } from './send-now.ts';
