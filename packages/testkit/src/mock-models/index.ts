export { startAnthropicMock } from './anthropic-mock.ts';
export { pickBehaviour, replyText, slowText, titleText, twoBlockTexts } from './behaviour.ts';
export { startOpenAIMock } from './openai-mock.ts';
export type { Behaviour, MockImage, MockRequest, MockServer, MockServerOptions, RequestKind } from './types.ts';
