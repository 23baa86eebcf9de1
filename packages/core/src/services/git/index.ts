export { removeWorktreeAfterClose } from './close-worktree.ts';
export { draftCommitMessage, type DraftDto } from './draft-message.ts';
export { type ChangesDto, commitSessionChanges, finishSessionWorktree, type GitRefusalDto, pushSessionBranch, readSessionChanges } from './session-git.ts';
