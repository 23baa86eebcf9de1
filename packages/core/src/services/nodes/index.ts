export { listDashboardNodes, countNodes, type DashboardNodeDto } from './list-dashboard-nodes.ts';
export { addComputer, type AddComputerOptions, type AddedComputerDto } from './add-computer.ts';
export { revokeToken } from './revoke-token.ts';
export { setExecutors } from './set-executors.ts';
export { validateFolderOnNode } from './validate-folder-on-node.ts';
export { setPermissionMode } from './set-permission-mode.ts';
export { removeComputer } from './remove-computer.ts';
export { issueToken } from './issue-token.ts';
