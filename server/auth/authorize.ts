// The `authorize` hook of the generated routes: key -> rate limit -> quotas -> scope. The key is
// counted before the scope check, so a key cannot probe scopes for free, and every keyed answer
// (403 included) carries the RateLimit headers.
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../../generated/server/errors.ts";
import { hashApiKey, parseBearer } from "./api-key.ts";
import type { AuthContext } from "./auth-context.ts";
import type { ApiKeyRecord, KeyRepository, QuotaCounter } from "./key-repository.ts";
import type { RateLimiter } from "./rate-limiter.ts";

export interface AuthorizeDeps {
  keys: KeyRepository;
  limiter: RateLimiter;
  now?: () => Date;
}

export function createAuthorize(deps: AuthorizeDeps) {
  const now = deps.now ?? (() => new Date());
  return async ({ request, reply, scope }: { request: FastifyRequest; reply: FastifyReply; scope: string | null }): Promise<AuthContext> => {
    const parsed = parseBearer(request.headers.authorization);
    if ("problem" in parsed) {
      // RFC 6750 §3: no error code when no bearer token came (no header, another scheme).
      const sentBearer = /^Bearer(\s|$)/i.test(request.headers.authorization ?? "");
      throw unauthorized(parsed.problem, sentBearer);
    }
    const key = await deps.keys.findByHash(hashApiKey(parsed.key));
    if (!key || key.revokedAt) throw unauthorized(key ? "this API key has been revoked" : "unknown API key", true);
    const rate = await deps.limiter.hit(key.id, key.rateLimit);
    reply.header("RateLimit-Limit", rate.limit);
    reply.header("RateLimit-Remaining", rate.remaining);
    reply.header("RateLimit-Reset", rate.resetSeconds);
    if (!rate.allowed) {
      throw new ApiError(429, "rate_limited", `rate limit of ${rate.limit} requests per minute exceeded`, {
        headers: { "Retry-After": rate.resetSeconds },
      });
    }
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
  };
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
