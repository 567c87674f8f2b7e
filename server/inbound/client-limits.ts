// What one SMTP client may hold of the listener (Postfix's anvil, decision I1): a number of
// connections at once per client, and deadlines on a whole session and on a DATA phase. The
// idle timeout alone bounds nothing against a client that trickles a byte now and then, and
// the global connection cap alone lets one address take every slot, so that every other
// sender gets 421 for as long as it likes.
import ipaddr from "ipaddr.js";

/**
 * Whose share a connection counts against: an IPv4 address as is (an IPv4-mapped IPv6 address
 * is that IPv4 address), an IPv6 address by its /64, the smallest block one host is given: a
 * client with a /64 has 2^64 addresses to spread over and would otherwise have no limit.
 */
export function clientKey(address: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return address;
  }
  if (parsed.kind() === "ipv4") return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).concat([0, 0, 0, 0]);
  return `${new ipaddr.IPv6(parts).toString()}/64`;
}

/** Open connections per client; `admit` counts a connection in, `release` out (idempotent). */
export class ConnectionsPerClient {
  private readonly open = new Map<string, Set<string>>();
  private readonly keyOf = new Map<string, string>();

  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** False when the client already holds `max` connections: this one is not counted. */
  admit(address: string, connectionId: string): boolean {
    const key = clientKey(address);
    const ids = this.open.get(key) ?? new Set<string>();
    if (this.max > 0 && ids.size >= this.max) return false;
    ids.add(connectionId);
    this.open.set(key, ids);
    this.keyOf.set(connectionId, key);
    return true;
  }

  release(connectionId: string): void {
    const key = this.keyOf.get(connectionId);
    if (key === undefined) return;
    this.keyOf.delete(connectionId);
    const ids = this.open.get(key)!;
    ids.delete(connectionId);
    if (ids.size === 0) this.open.delete(key);
  }
}

/**
 * The session deadline of each connection, and its DATA deadline while one runs. `cut` answers
 * 421 and closes. A session deadline that falls while a received message is being stored waits
 * for that message's reply: the sender must learn whether it was taken.
 */
export class SessionDeadlines {
  private readonly sessions = new Map<string, { timer: NodeJS.Timeout; dataTimer?: NodeJS.Timeout; storing: boolean; expired: boolean }>();

  private readonly limits: { sessionMs: number; dataMs: number };
  private readonly cut: (connectionId: string, text: string) => void;

  constructor(limits: { sessionMs: number; dataMs: number }, cut: (connectionId: string, text: string) => void) {
    this.limits = limits;
    this.cut = cut;
  }

  start(connectionId: string): void {
    const timer = setTimeout(() => {
      const s = this.sessions.get(connectionId);
      if (!s) return;
      s.expired = true;
      if (!s.storing) this.cut(connectionId, SESSION_TOO_LONG);
    }, this.limits.sessionMs);
    timer.unref();
    this.sessions.set(connectionId, { timer, storing: false, expired: false });
  }

  /** DATA's 354 went out: the message must be in before the DATA deadline. */
  dataStarted(connectionId: string): void {
    const s = this.sessions.get(connectionId);
    if (!s) return;
    s.dataTimer = setTimeout(() => this.cut(connectionId, DATA_TOO_LONG), this.limits.dataMs);
    s.dataTimer.unref();
  }

  /** The final dot came (or the stream ended): the message is ours to answer. */
  dataEnded(connectionId: string): void {
    const s = this.sessions.get(connectionId);
    if (!s) return;
    clearTimeout(s.dataTimer);
    s.storing = true;
  }

  /** The message was answered; a session deadline that fell meanwhile cuts now. */
  answered(connectionId: string): void {
    const s = this.sessions.get(connectionId);
    if (!s) return;
    clearTimeout(s.dataTimer);
    s.storing = false;
    if (s.expired) this.cut(connectionId, SESSION_TOO_LONG);
  }

  end(connectionId: string): void {
    const s = this.sessions.get(connectionId);
    if (!s) return;
    clearTimeout(s.timer);
    clearTimeout(s.dataTimer);
    this.sessions.delete(connectionId);
  }
}

export const TOO_MANY_FROM_CLIENT = "4.7.0 too many connections from your address, try again later";
export const SESSION_TOO_LONG = "4.4.2 session time limit reached, closing connection";
export const DATA_TOO_LONG = "4.4.2 message not received in time, nothing was stored; closing connection";
