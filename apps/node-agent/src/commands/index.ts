// The node agent's session commands: real CLI control behind the hub protocol.
export { chunkDiff, DiscoveryFeed, toWire } from './discovery-feed.ts';
export { handleSessionCommand } from './handle-command.ts';
export { mapHostEvent, reportIdentity } from './host-event-map.ts';
export { type SessionRecord, SessionRegistry } from './registry.ts';
export { processGone, SessionControl } from './session-control.ts';
export { type FolderCheck, validateFolder } from './validate-folder.ts';
