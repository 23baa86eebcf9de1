import { router } from '../../init.ts';
import { changesRoute } from './changes.ts';
import { draftRoute } from './draft.ts';

export const liveRouter = router({ changes: changesRoute, draft: draftRoute });
