import { router } from '../../init.ts';
import { createRoute } from './create.ts';
import { getRoute } from './get.ts';
import { changesRoute, commitRoute, draftMessageRoute, finishRoute, pushRoute, removeWorktreeRoute } from './git.ts';
import { journalRoute } from './journal.ts';
import { adoptInPlaceRoute, closeRoute, resumeRoute, continueHereRoute, stopRoute, compactRoute } from './lifecycle.ts';
import { listAllOpenRoute } from './list-all-open.ts';
import { listOpenRoute } from './list-open.ts';
import { newSessionOptionsRoute, resumeRecommendationsRoute } from './new-session.ts';
import { answerPromptRoute, promptsRoute } from './prompts.ts';
import { cancelMessageRoute, editMessageRoute } from './change-message.ts';
import { cancelScheduleRoute, scheduleMessageRoute, schedulesRoute } from './schedules.ts';
import { sendMessageRoute } from './send-message.ts';
import { transcribeRoute } from './transcribe.ts';

export const sessionsRouter = router({
  listOpen: listOpenRoute,
  listAllOpen: listAllOpenRoute,
  get: getRoute,
  journal: journalRoute,
  create: createRoute,
  stop: stopRoute,
  compact: compactRoute,
  close: closeRoute,
  resume: resumeRoute,
  continueHere: continueHereRoute,
  adoptInPlace: adoptInPlaceRoute,
  sendMessage: sendMessageRoute,
  transcribe: transcribeRoute,
  cancelMessage: cancelMessageRoute,
  editMessage: editMessageRoute,
  schedules: schedulesRoute,
  scheduleMessage: scheduleMessageRoute,
  cancelSchedule: cancelScheduleRoute,
  newSessionOptions: newSessionOptionsRoute,
  resumeRecommendations: resumeRecommendationsRoute,
  prompts: promptsRoute,
  answerPrompt: answerPromptRoute,
  changes: changesRoute,
  commit: commitRoute,
  push: pushRoute,
  finish: finishRoute,
  removeWorktree: removeWorktreeRoute,
  draftMessage: draftMessageRoute,
});
