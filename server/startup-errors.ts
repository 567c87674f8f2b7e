// A listener that cannot bind is the commonest start-up mistake (a second `npm start`, a port
// below 1024, an address the machine does not have). The kernel's error names neither the setting
// nor what to do; this names both, as one line main.ts prints without a stack trace.

/** A start-up failure caused by the configuration: printed as it is, exit 1. */
export class StartupError extends Error {}

export interface ListenSetting {
  /** The environment variables of the listener's address and port, e.g. HOST and PORT. */
  hostVar: string;
  portVar: string;
  host: string;
  port: number;
}

export async function listening<T>(setting: ListenSetting, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const { hostVar, portVar, host, port } = setting;
    switch ((error as NodeJS.ErrnoException).code) {
      case "EADDRINUSE":
        throw new StartupError(`${portVar}=${port}: ${host}:${port} is already in use (another server, or this one already running); set ${portVar} to a free port, or 0 to let the system choose`);
      case "EACCES":
        throw new StartupError(`${portVar}=${port}: not allowed to listen on ${host}:${port} (ports below 1024 need root or CAP_NET_BIND_SERVICE); set ${portVar} to a port above 1023`);
      case "EADDRNOTAVAIL":
      case "ENOTFOUND":
        throw new StartupError(`${hostVar}=${host}: this machine has no such address to listen on; set ${hostVar} to one of its addresses (127.0.0.1, 0.0.0.0, ::)`);
      default:
        throw error;
    }
  }
}
