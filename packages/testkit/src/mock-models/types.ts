/** What a request asked for, as far as the mocks care. */
export type RequestKind = 'turn' | 'title' | 'other';

/** How the mock answers a turn; chosen by magic words in the latest user text. */
export type Behaviour =
  | 'reply'
  | 'slow'
  | 'slowlines'
  | 'stall'
  | 'hang'
  | 'fail400'
  | 'limit429'
  | 'fail500'
  | 'twoblocks'
  | 'mdsample'
  | 'hugereply'
  | 'toolbash'
  | 'toolwrite'
  | 'tooledit'
  | 'toolask'
  | 'toolaskmulti'
  | 'toolshell'
  | 'tooldone'
  | 'toolsteps'
  | 'toolmix'
  | 'toolfail'
  | 'toolwait'
  | 'toolaskwait';

/** A tool call the mock made the model ask for (`TOOLBASH-<x>` and the other TOOL words). */
export interface MockToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/**
 * The tool result a CLI sent back as the latest input (Anthropic `tool_result`, OpenAI
 * `function_call_output`), with the call it answers when the request still holds it.
 */
export interface MockToolResult {
  toolUseId: string | null;
  /** Anthropic `is_error`; always false for OpenAI (a function output has no error flag). */
  isError: boolean;
  /** Name and input of the call this result answers (OpenAI: the arguments parsed). */
  toolName?: string | null;
  toolInput?: unknown;
  /** The result's text (text parts joined by newlines). */
  content: string;
}

/** An image a request carried, named by its bytes (the log holds no bodies). */
export interface MockImage {
  mediaType: string;
  sha256: string;
  bytes: number;
}

/** One logged request. The in-memory object is updated in place when the response ends. */
export interface MockRequest {
  /** Sequence number per server, starting at 1; it is the `<n>` of `MOCK-REPLY-<n>`. */
  id: number;
  time: string;
  method: string;
  /** Path including the query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  kind: RequestKind;
  /** Claude: `x-claude-code-session-id`; Codex: `session-id` (else `thread-id`). */
  sessionId: string | null;
  /** Text of the latest user message (CLI-injected reminder/context blocks left out). */
  userText: string | null;
  /**
   * The last text block of that message: magic words are read from it alone, because a CLI merges
   * the user texts that follow a failed turn into one message (FAIL400 would otherwise stick).
   */
  behaviourText?: string | null;
  /**
   * The prompt of the turn this request belongs to (the latest user message the person typed, not a
   * tool result) and how many tool results the request holds after it: the step a multi-call word
   * (TOOLSTEPS, TOOLMIX) is at, since the CLI resends the whole turn with every request.
   */
  turnText?: string | null;
  turnToolResults?: number;
  /** Set when the latest user message carries a tool result: the turn after a tool call. */
  toolResult?: MockToolResult | null;
  /** Images in the latest user message (Anthropic `image` blocks, OpenAI `input_image` parts). */
  images?: MockImage[];
  /** The tool call this request was answered with, if any. */
  toolCall?: MockToolCall | null;
  /** Number of `messages` (Anthropic) or `input` items (OpenAI). */
  messageCount: number | null;
  model: string | null;
  stream: boolean | null;
  behaviour: Behaviour | 'title' | null;
  /** The full assistant text this request was (or would have been) answered with. */
  reply: string | null;
  status: number;
  /** Request headers without credentials. */
  headers: Record<string, string>;
  /** True once the response is over: finished, closed by the client, or cut by `close()`. */
  done: boolean;
  /** The client went away before the response was complete. */
  clientClosed: boolean;
  durationMs: number | null;
  /** Parsed request body, only with `keepBodies: true` (bodies are large: tools, system prompt). */
  body?: unknown;
}

export interface MockServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Append one JSON line per request (written when its response is over). */
  logFile?: string;
  /** SLOW: number of text chunks (default 40). */
  slowChunks?: number;
  /** SLOW: pause between chunks in ms (default 1000). */
  slowChunkMs?: number;
  /** Keep parsed request bodies in `requests[].body` (memory only, never in the log file). */
  keepBodies?: boolean;
}

export interface MockServer {
  /** Base URL without `/v1`, e.g. `http://127.0.0.1:41234`. */
  url: string;
  port: number;
  requests: MockRequest[];
  /** Latest user texts of all turn requests in order, optionally of one session only. */
  userTexts(sessionId?: string): string[];
  /** Resolves with the first logged request (past or future) matching the predicate. */
  waitForRequest(predicate: (r: MockRequest) => boolean, timeoutMs?: number): Promise<MockRequest>;
  /** Cuts open streams and stops listening. */
  close(): Promise<void>;
}
