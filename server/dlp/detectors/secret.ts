// secret: credentials. Each rule is a format with a fixed, documented prefix or structure (so
// hex hashes, UUIDs and base64 blobs do not match), or a value right after a label that names it:
// - AWS access key ids (AKIA/ASIA/... + 16 base32 characters); AWS secret keys (40 base64
//   characters) after an aws_secret_access_key-like label or within 200 characters of an access key
// - JWTs whose header and payload decode to JSON objects (the header with "alg")
// - PEM private keys (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP)
// - GitHub (ghp_/gho_/ghu_/ghs_/ghr_, github_pat_), GitLab (glpat-), Slack (xox?- tokens, webhook
//   URLs), Stripe (sk_/rk_ live/test), Google API keys (AIza), SendGrid (SG.), npm (npm_), OpenAI
//   and Anthropic (sk-...T3BlbkFJ..., sk-proj-, sk-ant-), Telegram bot tokens, our own
//   platform_sk_ keys and whsec_ webhook secrets
// - credentials in URLs (scheme://user:password@host)
// - password phrases (password/passwd/pwd/parol/şifrə/пароль followed by ":", "=" or "is") whose
//   value looks like a password: not a placeholder, at least 6 characters, two character classes
//   or 12 characters or more
// - generic api_key/secret/token labels followed by a value of 16+ characters with letters and
//   digits
import { match, type Match } from "./detector.ts";

interface Rule {
  kind: string;
  re: RegExp;
  /** Group holding the secret (default the whole match). */
  group?: number;
  check?: (value: string, m: RegExpMatchArray) => boolean;
  mask?: (value: string) => string;
}

const keep4 = (kind: string) => (v: string) => `${kind} ${v.slice(0, Math.min(8, Math.floor(v.length / 3)))}****${v.slice(-4)}`;
const hidden = (kind: string) => () => `${kind} ********`;

function decodesToObject(part: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const placeholder = /^(?:[*x•.#_-]+|<[^>]*>|\{\{?[^}]*\}?\}|\[[^\]]*\]|\$\{?[A-Z_]+\}?|%[a-z_]+%|(?:your|my|the|new|old)[_-]?password|password\d*|changeme|example|secret|null|none|undefined|n\/a|tbd|required|hidden|redacted)$/i;

function looksLikePassword(v: string): boolean {
  const value = v.replace(/^["'`]|["'`.,;]$/g, "");
  if (value.length < 6 || value.length > 128 || placeholder.test(value)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
  return classes >= 2 || value.length >= 12;
}

const rules: Rule[] = [
  { kind: "aws-access-key", re: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z2-7]{16}(?![A-Za-z0-9])/g, mask: keep4("aws-access-key") },
  {
    kind: "aws-secret-key",
    re: /(?:aws_?secret_?access_?key|aws_?secret(?:_?key)?|secret_?access_?key|SecretAccessKey)["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    group: 1,
    mask: hidden("aws-secret-key"),
  },
  {
    kind: "jwt",
    re: /(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,})\.(eyJ[A-Za-z0-9_-]{2,}|[A-Za-z0-9_-]{2,})\.([A-Za-z0-9_-]*)(?![A-Za-z0-9_-])/g,
    check: (_v, m) => Boolean(decodesToObject(m[1])?.alg) && Boolean(decodesToObject(m[2])),
    mask: (v) => `jwt ${v.slice(0, 10)}****`,
  },
  { kind: "private-key", re: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP |)PRIVATE KEY(?: BLOCK)?-----/g, mask: (v) => v },
  { kind: "github-token", re: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})(?![A-Za-z0-9_])/g, mask: keep4("github-token") },
  { kind: "gitlab-token", re: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g, mask: keep4("gitlab-token") },
  { kind: "slack-token", re: /(?<![A-Za-z0-9])xox[abposre]-(?:\d+-)+[A-Za-z0-9-]{6,}(?![A-Za-z0-9-])/g, mask: keep4("slack-token") },
  { kind: "slack-webhook", re: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9]+\/[A-Za-z0-9]+\/[A-Za-z0-9]{16,}/g, mask: () => "slack-webhook https://hooks.slack.com/****" },
  { kind: "stripe-key", re: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}(?![A-Za-z0-9_])/g, mask: keep4("stripe-key") },
  { kind: "google-api-key", re: /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g, mask: keep4("google-api-key") },
  { kind: "sendgrid-key", re: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, mask: keep4("sendgrid-key") },
  { kind: "npm-token", re: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g, mask: keep4("npm-token") },
  { kind: "openai-key", re: /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})(?![A-Za-z0-9_-])/g, mask: keep4("openai-key") },
  { kind: "anthropic-key", re: /(?<![A-Za-z0-9_-])sk-ant-[a-z0-9]+-[A-Za-z0-9_-]{40,}(?![A-Za-z0-9_-])/g, mask: keep4("anthropic-key") },
  { kind: "telegram-bot-token", re: /(?<![A-Za-z0-9_:])\d{6,12}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g, mask: keep4("telegram-bot-token") },
  { kind: "platform-key", re: /(?<![A-Za-z0-9_])platform_sk_[A-Za-z0-9]{32}(?![A-Za-z0-9])/g, mask: keep4("platform-key") },
  { kind: "webhook-secret", re: /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9_+/=-]{24,}/g, mask: keep4("webhook-secret") },
  {
    kind: "url-credentials",
    re: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@'"<>]{1,64}:([^\s@/'"<>]{3,128})@[A-Za-z0-9.-]+/gi,
    group: 1,
    check: (v) => !placeholder.test(v),
    mask: hidden("url-password"),
  },
  {
    kind: "password",
    // Seven languages (docs/decisions.md DLP13).
    re: /(?<![\p{L}_])(?:password|passwd|passphrase|pwd|parol|parolu|parola|parolası|şifrə|şifrəsi|şifre|şifresi|sifre|пароль|passwort|kennwort|mot\s+de\s+passe|mdp|contraseña|clave(?:\s+de\s+acceso)?)(?![\p{L}_])["']?(?:[ \t]*(?:[:=]|(?:ist|est|es|is|равен)(?:[ \t]*:)?|:[ \t]*is|-)[ \t]*|[ \t]+)["']?([^\s"'<>]{1,128})/giu,
    group: 1,
    check: (v, m) => /[:=]|\b(?:is|ist|est|es)\b|равен|-/i.test(m[0].slice(0, m[0].length - m[1].length)) && looksLikePassword(v),
    mask: hidden("password"),
  },
  {
    // A configuration variable named for a password: ROOT_PASSWORD=..., DB_PASS=...,
    // MYSQL_ROOT_PASSWORD: ... (.env files, docker-compose, CI settings). Matched from its "_", so
    // only text with "_pass" pays for it.
    kind: "password",
    re: /(?<=[A-Za-z0-9])_(?:password|passwd|passphrase|pass|pwd)(?![\p{L}\d_])["']?[ \t]*[:=][ \t]*["']?([^\s"'<>]{1,128})/giu,
    group: 1,
    check: (v) => looksLikePassword(v),
    mask: hidden("password"),
  },
  {
    // *_SECRET=... (APP_SECRET, JWT_SECRET): a key by its variable's name.
    kind: "api-key",
    re: /(?<=[A-Za-z0-9])_secret(?![A-Za-z0-9_])["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9_\-./+][A-Za-z0-9_\-./+=]{15,199})/gi,
    group: 1,
    check: (v) => /[A-Za-z]/.test(v) && /\d/.test(v) && !placeholder.test(v),
    mask: keep4("api-key"),
  },
  {
    kind: "api-key",
    re: /(?<![A-Za-z0-9])(?:api[_-]?key|apikey|api[_-]?secret|secret[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token|bearer|private[_-]?token|x-api-key)["']?\s*[:=]?\s*["']?([A-Za-z0-9_\-./+][A-Za-z0-9_\-./+=]{15,199})/gi,
    // The value does not start with "=": with the separator optional, a 15-character value
    // took the "=" in front of it to reach 16 ("api_key=abcd1234efgh567" was a finding).
    group: 1,
    check: (v) => /[A-Za-z]/.test(v) && /\d/.test(v) && !placeholder.test(v),
    mask: keep4("api-key"),
  },
];

export function detectSecrets(text: string): Match[] {
  const out: Match[] = [];
  for (const rule of rules) {
    for (const m of text.matchAll(rule.re)) {
      const value = rule.group ? m[rule.group] : m[0];
      if (rule.check && !rule.check(value, m)) continue;
      const start = m.index + (rule.group ? m[0].lastIndexOf(value) : 0);
      const end = start + value.length;
      // One value, one finding: a token already matched by a named format is not also "api-key".
      if (out.some((o) => o.start < end && start < o.end)) continue;
      out.push(match("secret", `${rule.kind}:${value}`, (rule.mask ?? keep4(rule.kind))(value), start, end));
    }
  }
  // An AWS secret key often sits unlabelled next to its access key id.
  for (const key of out.filter((o) => o.value.startsWith("aws-access-key:"))) {
    const window = text.slice(key.end, key.end + 200);
    const m = /(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/.exec(window);
    if (m && /[A-Z]/.test(m[1]) && /[a-z]/.test(m[1]) && /\d/.test(m[1])) {
      const start = key.end + m.index;
      if (!out.some((o) => o.start < start + 40 && start < o.end)) out.push(match("secret", `aws-secret-key:${m[1]}`, "aws-secret-key ********", start, start + 40));
    }
  }
  return out;
}
