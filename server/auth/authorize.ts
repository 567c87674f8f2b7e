// The `authorize` hook of the generated routes: key -> rate limit -> quotas -> scope. The key is
// counted before the scope check, so a key cannot probe scopes for free, and every keyed answer
// (403 included) carries the RateLimit headers.
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../../generated/server/errors.ts";
import { hashApiKey, parseBearer } from "./api-key.ts";
import type { AuthContext } from "./auth-context.ts";
import type { ApiKeyRecord, KeyRepository, QuotaCounter } from "./key-repository.ts";
import type { RateDecision, RateLimiter } from "./rate-limiter.ts";

export interface AuthorizeDeps {
  keys: KeyRepository & { peek?(hash: string): ApiKeyRecord | undefined };
  limiter: RateLimiter;
  now?: () => Date;
}

interface AuthorizeInput {
  request: FastifyRequest;
  reply: FastifyReply;
  scope: string | null;
}

/**
 * The hook answers at once when everything it needs is in this process's memory (a key seen
 * before, the in-process limiter, no quota): the generated routes then go on in the same turn, as
 * they were written to (`Auth | Promise<Auth>`). Anything else awaits the store. A read costs
 * about 26 us on this machine; the promise and microtask turns of an always-async hook were 10 %
 * of it (issue 37's before/after, bench/README.md).
 */
export function createAuthorize(deps: AuthorizeDeps) {
  const now = deps.now ?? (() => new Date());

  return ({ request, reply, scope }: AuthorizeInput): AuthContext | Promise<AuthContext> => {
    const hash = hashApiKey(bearerKey(request));
    const known = deps.keys.peek?.(hash);
    if (known && deps.limiter.hitNow && known.dailyQuota === null && known.monthlyQuota === null) {
      withinRate(deps.limiter.hitNow(valid(known).id, known.rateLimit), reply);
      return scoped(known, scope);
    }
    return fromStore(hash, reply, scope);
  };

  async function fromStore(hash: string, reply: FastifyReply, scope: string | null): Promise<AuthContext> {
    const key = valid(await deps.keys.findByHash(hash));
    withinRate(await deps.limiter.hit(key.id, key.rateLimit), reply);
    if (key.dailyQuota === null && key.monthlyQuota === null) return scoped(key, scope);
    const t = now();
    const counters: QuotaCounter[] = [];
    if (key.dailyQuota !== null) counters.push({ period: `d:${t.toISOString().slice(0, 10)}`, limit: key.dailyQuota });
    if (key.monthlyQuota !== null) counters.push({ period: `m:${t.toISOString().slice(0, 7)}`, limit: key.monthlyQuota });
    const exhausted = await deps.keys.consumeQuota(key.id, counters);
    if (exhausted) {
      const daily = exhausted.period.startsWith("d:");
      throw new ApiError(429, "quota_exceeded", `${daily ? "daily" : "monthly"} quota of ${exhausted.limit} requests exhausted`, {
        headers: { "Retry-After": secondsUntilPeriodEnd(t, daily) },
      });
    }
    return scoped(key, scope);
  }
}

/** The API key of the request's bearer token, or the 401 that says why there is none. */
function bearerKey(request: FastifyRequest): string {
  const parsed = parseBearer(request.headers.authorization);
  if ("problem" in parsed) {
    // RFC 6750 §3: no error code when no bearer token came (no header, another scheme).
    const sentBearer = /^Bearer(\s|$)/i.test(request.headers.authorization ?? "");
    throw unauthorized(parsed.problem, sentBearer);
  }
  return parsed.key;
}

/** The key, unless it is unknown or revoked (a 401; such a key is not counted). */
function valid(key: ApiKeyRecord | undefined): ApiKeyRecord {
  if (!key || key.revokedAt) throw unauthorized(key ? "this API key has been revoked" : "unknown API key", true);
  return key;
}

/** Sets the RateLimit headers (on every keyed answer, 403 and 429 included); refuses a key over its limit. */
function withinRate(rate: RateDecision, reply: FastifyReply): void {
  reply.header("RateLimit-Limit", rate.limit);
  reply.header("RateLimit-Remaining", rate.remaining);
  reply.header("RateLimit-Reset", rate.resetSeconds);
  if (!rate.allowed) {
    throw new ApiError(429, "rate_limited", `rate limit of ${rate.limit} requests per minute exceeded`, {
      headers: { "Retry-After": rate.resetSeconds },
    });
  }
}

/** The key's context, after the scope check (which comes after counting: no free scope probing). */
function scoped(key: ApiKeyRecord, scope: string | null): AuthContext {
  if (scope && !key.scopes.includes(scope)) {
    throw new ApiError(403, "forbidden", `this key lacks the scope ${scope}`, {
      headers: { "WWW-Authenticate": `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope}"` },
    });
  }
  return { projectId: key.projectId, keyId: key.id, scopes: key.scopes };
}

const REALM = "platform-api";

/** 401 with the RFC 6750 challenge; `invalid_token` when a bearer token was sent and refused. */
function unauthorized(problem: string, tokenSent: boolean): ApiError {
  const challenge = tokenSent
    ? `Bearer realm="${REALM}", error="invalid_token", error_description="${problem.replace(/["\\]/g, "'")}"`
    : `Bearer realm="${REALM}"`;
  return new ApiError(401, "unauthorized", problem, { headers: { "WWW-Authenticate": challenge } });
}

function secondsUntilPeriodEnd(t: Date, daily: boolean): number {
  const end = daily
    ? Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() + 1)
    : Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((end - t.getTime()) / 1000));
}
