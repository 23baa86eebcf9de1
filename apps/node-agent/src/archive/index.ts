export {
  ArchiveError,
  type ArchiveErrorCode,
  type ArchivedJournal,
  type ArchiveExecutor,
  archiveJournal,
  archivePath,
  type RestoreResult,
  restoreJournal,
} from './archive-journal.ts';
