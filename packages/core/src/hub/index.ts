export { Hub, type HubOptions } from './server.ts';
export { generateAgentToken, hashToken, bearerToken } from './tokens.ts';
