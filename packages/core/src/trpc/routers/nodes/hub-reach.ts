import { z } from 'zod';
import { hubPlaintext, hubReach } from '../../../domain/index.ts';
import { authedProcedure } from '../../init.ts';

export const ZHubReachResponse = z.object({
  /** The address the install command points new computers' agents at. */
  hubUrl: z.string(),
  reach: z.enum(['ok', 'listens-locally', 'local-address']),
  /** Where the hub listens, and the variable that sets it (BRIA_HUB_HOST wins over BRIA_HOST). */
  listenHost: z.string(),
  variable: z.enum(['BRIA_HOST', 'BRIA_HUB_HOST']),
  /** The command's hub URL is plain ws:// to another computer (BRIA_HUB_TLS=off): shown as a warning. */
  plaintext: z.boolean(),
});

/** "Add a computer" asks first whether another computer could reach the hub at all (domain/hub-reach.ts). */
export const hubReachRoute = authedProcedure.output(ZHubReachResponse).query(({ ctx }) => ({
  hubUrl: ctx.hubPublicUrl,
  reach: hubReach({ listenHost: ctx.hubListen.host, hubUrl: ctx.hubPublicUrl, hubUrlConfigured: ctx.hubListen.urlConfigured }),
  listenHost: ctx.hubListen.host,
  variable: ctx.hubListen.variable,
  plaintext: hubPlaintext(ctx.hubPublicUrl),
}));
