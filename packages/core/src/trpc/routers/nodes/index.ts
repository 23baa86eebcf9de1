import { issueTokenRoute, removeComputerRoute } from './remove-computer.ts';
import { router } from '../../init.ts';
import { addComputerRoute } from './add-computer.ts';
import { findComputerRoute } from './find-computer.ts';
import { hubReachRoute } from './hub-reach.ts';
import { listRoute } from './list.ts';
import { revokeTokenRoute } from './revoke-token.ts';
import { setExecutorsRoute } from './set-executors.ts';
import { setPermissionModeRoute } from './set-permission-mode.ts';

export const nodesRouter = router({
  list: listRoute,
  find: findComputerRoute,
  addComputer: addComputerRoute,
  hubReach: hubReachRoute,
  revokeToken: revokeTokenRoute,
  setExecutors: setExecutorsRoute,
  setPermissionMode: setPermissionModeRoute,
  remove: removeComputerRoute,
  issueToken: issueTokenRoute,
});
