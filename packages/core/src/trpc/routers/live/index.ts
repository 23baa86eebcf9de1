import { router } from '../../init.ts';
import { changesRoute } from './changes.ts';

export const liveRouter = router({ changes: changesRoute });
