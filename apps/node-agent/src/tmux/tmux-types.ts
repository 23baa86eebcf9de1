// The tmux adapter's options and results (tmux.ts).

export interface TmuxOptions {
  /**
   * Name of the private server socket (`tmux -L <name>`), or the absolute path of a server's socket
   * (`tmux -S <path>`: a server of the user's own, see `userServer`).
   */
  socketName: string;
  /**
   * A tmux server of the user's own (adopt in place, docs/handoff.md): Bria only reads panes, pastes
   * and sends keys. Never started, configured (`set-option`, environment), killed or cleaned here:
   * those calls throw. The command client attaches (no output, ignoring size) to `controlSession`.
   */
  userServer?: boolean;
  /** The session a control-mode command client attaches to (default Bria's keeper session). */
  controlSession?: string;
  /** Where wrapper scripts and exit files are written. */
  runDir: string;
  tmuxBin?: string;
  /**
   * Send commands through one control-mode client (`tmux -C`) instead of one process per call
   * (default true). Without a server, and with false, every call spawns a tmux client.
   */
  control?: boolean;
  /**
   * Environment of the tmux client processes this adapter runs, hence of a server one of them
   * starts (and of every pane's wrapper shell): the CLIs' environment, without Bria's secrets.
   * Default: this process's environment.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Names removed from the global environment of a server that is already running (started with more). */
  withheld?: (name: string) => boolean;
}

export interface NewSessionOptions {
  name: string;
  cwd: string;
  command: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  width?: number;
  height?: number;
}

export interface NewSessionResult {
  sessionName: string;
  paneId: string;
  panePid: number;
  scriptPath: string;
  exitFile: string;
}
