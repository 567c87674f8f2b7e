// The outbound POST of a forwarded update to the project's forwardUrl, with the SSRF rules of
// webhook deliveries (docs/decisions.md W4): https only unless the development flag is on,
// private, loopback and link-local targets refused at send time, redirects not followed.
// TODO(h9): this is the call shape of server/adapters/outbound-http.ts `safePost` (resolve once,
// connect to the checked address); switch the import to it when it lands on main.
import { lookup } from "node:dns/promises";
import { isPrivateAddress, webhookUrlProblem } from "../webhooks/webhook-url.ts";

export interface SafePostOptions {
  body: string | Buffer;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** The development flag: http:// and loopback targets allowed. */
  development?: boolean;
}

export interface SafePostResult {
  /** The HTTP status; 0 when no answer came (refused target, DNS failure, connect error, timeout). */
  status: number;
  error?: string;
}

export type SafePost = (target: string, options: SafePostOptions) => Promise<SafePostResult>;

export const safePost: SafePost = async (target, options) => {
  const problem = webhookUrlProblem(target, options.development ?? false);
  if (problem) return { status: 0, error: `refused: ${problem}` };
  try {
    const host = new URL(target).hostname.replace(/^\[|\]$/g, "");
    if (!options.development && (await lookup(host, { all: true })).some((a) => isPrivateAddress(a.address))) {
      return { status: 0, error: "refused: the host resolves to a non-public address" };
    }
    const res = await fetch(target, {
      method: "POST",
      body: typeof options.body === "string" ? options.body : new Uint8Array(options.body),
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      headers: options.headers,
    });
    await res.body?.cancel();
    return { status: res.status };
  } catch (error) {
    const e = error as { name?: string; cause?: { code?: string } };
    return { status: 0, error: e.cause?.code ?? (e.name === "TimeoutError" ? "timeout" : e.name ?? "network error") };
  }
};
