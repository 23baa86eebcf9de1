export { Hub, type HubOptions } from './server.ts';
export { generateAgentToken, hashToken } from '../db/agent-tokens.ts';
export { bearerToken } from './tokens.ts';
