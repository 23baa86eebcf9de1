import { signOutEverywhereRoute } from './sign-out-everywhere.ts';
import { router } from '../../init.ts';
import { logoutRoute } from './logout.ts';
import { meRoute } from './me.ts';

export const authRouter = router({ me: meRoute, logout: logoutRoute, signOutEverywhere: signOutEverywhereRoute });
