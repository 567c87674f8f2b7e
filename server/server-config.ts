// The shape of the server's configuration (loaded by config.ts, checked by config-check.ts).
import type { PresetConfig } from "./messenger/preset-config.ts";

export interface ServerConfig {
  host: string;
  port: number;
  /** Base URL clients use, for links such as webmail login links. */
  publicUrl: string;
  dataDir: string;
  /** `postgres://...`: every repository on this PostgreSQL (issue 15, decision P1); empty: SQLite in dataDir. */
  databaseUrl: string;
  dns: { enabled: boolean; host: string; port: number };
  /** Resolver used to check mail-domain records; defaults to our own DNS server. */
  resolver: { host: string; port: number };
  /** Host names mail domains point their MX and SPF at. */
  mailHost: string;
  /** Name servers announced in NS and SOA of hosted zones. */
  nameServers: string[];
  /** Development only: allow http:// webhook URLs to loopback addresses. */
  allowHttpLoopbackWebhooks: boolean;
  /** How long a webhook receiver has to answer an attempt (decision W2: 10 s). */
  webhookTimeoutMs: number;
  /**
   * Proxies whose X-Forwarded-For is believed (addresses or networks, e.g. 10.0.0.0/24): the
   * client's address is the right-most hop not in this list. Empty: the connection's address.
   */
  trustedProxies: string[];
  /** Origins whose browser scripts may call the API (CORS); `*` for any, empty for none. */
  corsOrigins: string[];
  /** DNS server ("ip:port") for the host names of outbound HTTP (webhooks); empty: the system's. */
  outboundResolver: string;
  /** Create the demo project and key on the first start. */
  demo: boolean;
  logLevel: string;
  /** Per-project caps (docs/decisions.md L3); reaching one is 409 limit_reached. */
  limits: Limits;
  /** The inbound SMTP listener (server/inbound), the MX of hosted mail domains. */
  smtp: SmtpConfig;
  /** Outgoing mail: the built-in relay, or a smarthost (server/mail-sending/README.md). */
  relay: RelayConfig;
  /** Who signs certificates: the built-in local CA (works offline) or an ACME CA. */
  certificates: { issuer: "local" | "acme"; acme: AcmeConfig };
  /** The messenger platform (Telegram Bot API); server/README.md, "Messenger bots". */
  messenger: MessengerConfig;
  /** DLP scanning threads (server/dlp); 0: up to 2, no more than the machine's cores. */
  dlp: { threads: number };
}

export interface SmtpConfig {
  enabled: boolean;
  host: string;
  port: number;
  /** Advertised in SIZE and enforced: a larger message is refused with 552. */
  maxMessageBytes: number;
  /** RCPT TO beyond this answers 452 4.5.3 (RFC 5321 asks for at least 100). */
  maxRecipients: number;
  /** Connections open at once over all clients; one more is answered 421 and closed. */
  maxConnections: number;
  /**
   * Connections open at once from one client (an IPv4 address, or an IPv6 /64: one host's
   * share); one more is answered 421 4.7.0, so one address cannot take every slot.
   */
  maxConnectionsPerClient: number;
  /** A connection silent for this long is closed (a stalled DATA stores nothing). */
  idleTimeoutMs: number;
  /**
   * The longest a whole connection may last, however busy: a client trickling a byte now and
   * then never goes idle. At the deadline it gets 421 4.4.2 and is closed; a message whose DATA
   * had ended is still answered first.
   */
  sessionTimeoutMs: number;
  /** The longest from DATA's 354 to the final dot; past it 421 4.4.2, nothing stored. */
  dataTimeoutMs: number;
  /**
   * TCP balancers (addresses) that open each connection with a PROXY protocol v1 header naming
   * the real client: SPF, the Received line and the per-client limits then see the sender.
   */
  proxyProtocolFrom: string[];
}

export interface RelayConfig {
  /** `relay` of the messages it takes; default the mail host. */
  name: string;
  /** Port of recipient MX hosts (25; tests point it at a loopback sink). */
  port: number;
  /** Development and tests only: deliver to loopback MX addresses (RELAY_ALLOW_LOOPBACK). */
  allowLoopback: boolean;
  /** Hand every message to this host instead of the recipients' MX. */
  smarthost?: { host: string; port: number; secure: boolean; requireTls: boolean; user?: string; pass?: string };
}

export interface AcmeConfig {
  /** The CA's ACME directory, e.g. https://acme-v02.api.letsencrypt.org/directory. */
  directoryUrl: string;
  /** External account binding, for CAs that require one (both or neither). */
  eabKid: string;
  eabHmacKey: string;
  /** Extra CA certificate (PEM file) to trust for the directory's HTTPS, e.g. a test CA's. */
  caFile: string;
  /** Contact address for the ACME account; optional. */
  email: string;
  /** First poll of a challenge's status after answering it (ms); later polls back off. */
  pollMinMs: number;
}

export interface MessengerConfig {
  /** Bot API root without a trailing slash; default the public Bot API. */
  apiRoot: string;
  /** The manager bot (Bot Management Mode on) behind bot-creation links; empty: links answer 501. */
  managerToken: string;
  timeoutMs: number;
  /** Bot-creation links expire after this. */
  linkTtlSeconds: number;
  /** Tokens of one bulk request checked with the platform at once. */
  bulkConcurrency: number;
  /** Shared presets offered to every project (docs/decisions.md B2). */
  presets: PresetConfig[];
}

export interface Limits {
  webhooks: number;
  mailboxes: number;
  groups: number;
  membersPerGroup: number;
  recordsPerZone: number;
  mailDomains: number;
  certificates: number;
  bots: number;
}
