import type { BotCommand, MenuButton, UserFromGetMe } from '@grammyjs/types';
import type { ApiRequest } from './http/request-body.ts';
import type { CallbackStore } from './state/callbacks.ts';
import type { ChatStore } from './state/chats.ts';
import type { FileStore } from './state/file-store.ts';
import type { UpdateQueue } from './state/update-queue.ts';

export interface WebhookSettings {
  url: string;
  maxConnections?: number;
  allowedUpdates?: string[];
  secretToken?: string;
}

/** Everything a method handler may read or change; one per fake server. */
export interface FakeContext {
  me: UserFromGetMe;
  chats: ChatStore;
  updates: UpdateQueue;
  files: FileStore;
  callbacks: CallbackStore;
  commands: Map<string, BotCommand[]>;
  menuButtons: Map<string, MenuButton>;
  webhook: WebhookSettings;
  /** Milliseconds, overridable so tests can age callback queries. */
  clock: () => number;
}

export interface HandlerRequest extends ApiRequest {
  /** Resolves when the HTTP client disconnected before the answer. */
  gone: Promise<void>;
}

export type Handler = (req: HandlerRequest, ctx: FakeContext) => unknown;

export const unixTime = (ctx: FakeContext): number => Math.floor(ctx.clock() / 1000);
