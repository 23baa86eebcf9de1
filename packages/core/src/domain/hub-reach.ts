/**
 * Whether another computer can reach the hub with the install command the dashboard shows (issue 16:
 * no dead ends). Pure: the listen host and the hub's shown address come in as facts.
 *  - `listens-locally`: the hub listens on a loopback address only, so no other computer can
 *    connect, whatever the command says — unless an explicit `BRIA_HUB_PUBLIC_URL` names another
 *    host (someone put a proxy or tunnel in front of it, on purpose).
 *  - `local-address`: it listens on the network, but the command points at localhost/127.0.0.1,
 *    which on the other computer is that computer itself (BRIA_PUBLIC_URL unset or local).
 */
export type HubReach = 'ok' | 'listens-locally' | 'local-address';

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::1' || h === '0:0:0:0:0:0:0:1';
}

export function hubReach(o: { listenHost: string; hubUrl: string; hubUrlConfigured: boolean }): HubReach {
  let urlHost: string;
  try {
    urlHost = new URL(o.hubUrl).hostname;
  } catch {
    return 'local-address';
  }
  if (isLoopbackHost(o.listenHost)) return o.hubUrlConfigured && !isLoopbackHost(urlHost) ? 'ok' : 'listens-locally';
  return isLoopbackHost(urlHost) ? 'local-address' : 'ok';
}

/**
 * The install command would send the token in the clear: plain ws:// to another computer. Only
 * the operator's explicit BRIA_HUB_TLS=off leads here (npm start serves TLS with its own CA).
 */
export function hubPlaintext(hubUrl: string): boolean {
  try {
    const u = new URL(hubUrl);
    return u.protocol === 'ws:' && !isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}
