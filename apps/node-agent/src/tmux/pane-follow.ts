import { type ClientSettled, ControlClient } from './control.ts';

/**
 * The text of a control-mode `%output %<pane> <data>` line for `paneId`, its escapes decoded (tmux
 * writes `\` and every byte below a space as a three-digit octal escape); null for other lines.
 */
export function paneOutput(line: string, paneId: string): string | null {
  const prefix = `%output ${paneId} `;
  if (!line.startsWith(prefix)) return null;
  return line.slice(prefix.length).replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

/**
 * Follows one pane's output as tmux draws it: a control-mode client of its own, attached read-only to
 * the pane's tmux session (output goes only to clients attached to the pane's session, and the
 * agent's command client sits on the keeper session with `no-output`). `ignore-size`: the follower
 * never resizes the CLI's window. Pushed by tmux, so nothing polls; closed when nobody follows.
 */
export class PaneFollower {
  private constructor(private readonly client: ControlClient) {}

  static async open(o: {
    bin: string;
    socketName: string;
    sessionName: string;
    paneId: string;
    onOutput: (data: string) => void;
    onClose?: () => void;
    settled?: ClientSettled;
  }) {
    const client = await ControlClient.open(o.bin, o.socketName, o.sessionName, 'read-only,ignore-size', o.settled);
    if (!client) return null;
    client.onNotification((line) => {
      const data = paneOutput(line, o.paneId);
      if (data !== null) o.onOutput(data);
    });
    if (o.onClose) client.onClose(o.onClose);
    return new PaneFollower(client);
  }

  get closed(): boolean {
    return this.client.closed;
  }

  get pid(): number | undefined {
    return this.client.pid;
  }

  close(): void {
    this.client.close();
  }
}
