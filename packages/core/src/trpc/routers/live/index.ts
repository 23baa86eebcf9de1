import { router } from '../../init.ts';
import { changesRoute } from './changes.ts';
import { draftRoute } from './draft.ts';
import { terminalInputRoute, terminalRoute } from './terminal.ts';

export const liveRouter = router({ changes: changesRoute, draft: draftRoute, terminal: terminalRoute, terminalInput: terminalInputRoute });
