import { router } from '../../init.ts';
import { listArchiveRoute } from './list.ts';

export const archiveRouter = router({ list: listArchiveRoute });
