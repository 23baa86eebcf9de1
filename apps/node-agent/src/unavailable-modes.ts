import type { Env } from './executors/index.ts';

/**
 * Permission modes that cannot start on this machine, as `<executor>:<mode>` for the hello: Claude
 * Code refuses to skip permissions for root (`--permission-mode bypassPermissions` exits with
 * "cannot be used with root/sudo privileges", 2.1.197) unless the CLIs' environment says it runs in a
 * sandbox (`IS_SANDBOX=1`, the user's own declaration; Bria never sets it for them).
 */
export function unavailableModes(cliEnv: Env, uid: number | undefined = process.getuid?.()): string[] {
  return uid === 0 && cliEnv.IS_SANDBOX !== '1' ? ['claude:bypassPermissions'] : [];
}
