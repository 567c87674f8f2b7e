// No secret in any log line (issue 17 item 5, issue 28 item 11). Three layers, because a secret can reach a log in
// three ways: a structured field (headers, a logged object), the request URL (a webmail login
// link carries its token in the query), or free text (an error message quoting a key). The last
// layer rewrites each finished line, so it holds for lines no one has thought of yet.
import type { FastifyRequest } from "fastify";
import { Transform, type Writable } from "node:stream";

const CENSOR = "[REDACTED]";

// Query parameters whose values are secrets wherever they appear.
const secretParam = /^(token|access_token|key|api_key|apikey|secret|password|pass|signature|sig|session|code)$/i;

/** The path and query of a URL with the values of secret-named parameters replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && secretParam.test(decodeSafe(name)) ? `${name}=${CENSOR}` : pair;
    })
    .join("&");
  return `${url.slice(0, q)}?${query}`;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// Shapes of our secrets and of the usual foreign ones, masked anywhere in a line.
const secretShapes: RegExp[] = [
  /platform_sk_[A-Za-z0-9_-]+/g, // API keys (A2)
  /whsec_[A-Za-z0-9_-]+/g, // webhook signing secrets
  /\b(wl|ws)_[A-Za-z0-9_-]{16,}/g, // webmail login links and sessions
  // Open-pixel, click and one-click unsubscribe tokens (decision T3) in their paths, also with
  // JSON-escaped slashes: whoever reads one could unsubscribe the recipient (issue 28 item 11).
  /(?<=\\?\/mail\\?\/[cou]\\?\/)[^/?#&\s"'<>\\]+/g,
  // The MAC of a signed VERP address (decision T6): with it, anyone could report a bounce.
  /(?<=\bbounces\+[a-z0-9_]+\.(?:c\.)?)[a-z0-9]{16}(?=@)/gi,
  /(?<![0-9])\d{5,}:[A-Za-z0-9_-]{30,}/g, // messenger bot tokens (also inside /bot<token>/ paths)
  /(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, // Authorization values
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, // PEM keys (DKIM)
  /((?:token|access_token|api_key|apikey|secret|password)=)[^&\s"\\]+/gi, // query strings in free text
];

/** Masks every secret-shaped substring; the result stays valid JSON when the input was. */
export function redactText(line: string): string {
  let out = line;
  for (const shape of secretShapes) {
    out = out.replace(shape, (match, prefix: unknown) => (typeof prefix === "string" && prefix.endsWith("=") ? `${prefix}${CENSOR}` : CENSOR));
  }
  return out;
}

/** fastify's `logger` option: structured redaction, URLs without secret values, masked lines. */
export function loggerOptions(level: string, out?: Writable) {
  // pino writes one whole line per write, so each chunk is masked as a line.
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      done(null, redactText(chunk.toString("utf8")));
    },
  });
  transform.pipe(out ?? process.stdout);
  return {
    level,
    stream: transform,
    redact: {
      paths: [
        "req.headers.authorization", "req.headers.cookie", "req.headers[\"x-platform-signature\"]",
        "res.headers[\"set-cookie\"]", "headers.authorization", "headers.cookie", "headers[\"set-cookie\"]",
        "*.password", "*.secret", "*.token", "*.apiKey", "*.key", "*.privateKey", "*.dkimPrivateKey",
      ],
      censor: CENSOR,
    },
    serializers: {
      req(request: FastifyRequest) {
        return { method: request.method, url: redactUrl(request.url), host: request.host, remoteAddress: request.ip };
      },
    },
  };
}
