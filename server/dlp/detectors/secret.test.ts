// The secret detector on its own: each credential format with its exact finding (kind, masked
// form, span), both sides of its length limits and of its neighbours; AWS secret keys by label and
// by their access key's 200-character window; JWTs that decode against ones that do not; password
// phrases against placeholders and prose.
import { describe, expect, it } from "vitest";
import { detectSecrets } from "./secret.ts";

const found = (text: string) =>
  detectSecrets(text).map(({ type, value, masked, start, end }) => ({ type, value, masked, text: text.slice(start, end) }));
const secret = (kind: string, value: string, masked: string) => ({ type: "secret", value: `${kind}:${value}`, masked, text: value });

const accessKey = "AKIAIOSFODNN7EXAMPLE";
const secretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const accessKeyFinding = secret("aws-access-key", accessKey, "aws-access-key AKIAIO****MPLE");
const secretKeyFinding = secret("aws-secret-key", secretKey, "aws-secret-key ********");

describe("detectSecrets: AWS", () => {
  it("finds an access key id of each documented prefix, and not one that runs into a longer word", () => {
    expect(found(`key ${accessKey} here`)).toEqual([accessKeyFinding]);
    expect(found("ASIAY34FZKBOKMUTVV7A")).toEqual([secret("aws-access-key", "ASIAY34FZKBOKMUTVV7A", "aws-access-key ASIAY3****VV7A")]);
    expect(found(`x${accessKey}`)).toEqual([secret("aws-access-key", accessKey, "aws-access-key AKIAIO****MPLE")]);
    expect(found(`X${accessKey}`)).toEqual([]);
    expect(found(`9${accessKey}`)).toEqual([]);
    expect(found(`${accessKey}a`)).toEqual([]);
    expect(found(`${accessKey}1`)).toEqual([]);
    expect(found("AKIAIOSFODNN7EXAMPL")).toEqual([]);
    expect(found("AKIAIOSFODNN1EXAMPLE")).toEqual([]); // 1 is not base32
    expect(found("AXYZIOSFODNN7EXAMPLE")).toEqual([]);
  });

  it("finds a secret key after its label, 40 characters exactly", () => {
    expect(found(`aws_secret_access_key = ${secretKey}`)).toEqual([secretKeyFinding]);
    expect(found(`AWS_SECRET_ACCESS_KEY=${secretKey}\n`)).toEqual([secretKeyFinding]);
    expect(found(`{"SecretAccessKey": "${secretKey}"}`)).toEqual([secretKeyFinding]);
    expect(found(`aws_secret: '${secretKey}'`)).toEqual([secretKeyFinding]);
    expect(found(`aws_secret_access_key = ${secretKey}A`)).toEqual([]);
    expect(found(`aws_secret_access_key = ${secretKey.slice(1)}`)).toEqual([]);
  });

  it("finds an unlabelled secret key within 200 characters after an access key", () => {
    expect(found(`${accessKey} ${secretKey}`)).toEqual([accessKeyFinding, secretKeyFinding]);
    expect(found(`id ${accessKey}\nsecret ${secretKey}\n`)).toEqual([accessKeyFinding, secretKeyFinding]);
    expect(found(`${accessKey}${" ".repeat(160)}${secretKey}`)).toEqual([accessKeyFinding, secretKeyFinding]);
    expect(found(`${accessKey}${" ".repeat(161)}${secretKey}`)).toEqual([accessKeyFinding]);
    expect(found(`${secretKey} ${accessKey}`)).toEqual([accessKeyFinding]);
    expect(found(`${secretKey}`)).toEqual([]);
  });

  it("wants the unlabelled secret to mix upper case, lower case and digits, and to be 40 characters on its own", () => {
    expect(found(`${accessKey} da39a3ee5e6b4b0d3255bfef95601890afd80709`)).toEqual([accessKeyFinding]);
    expect(found(`${accessKey} ${secretKey.toLowerCase()}`)).toEqual([accessKeyFinding]);
    expect(found(`${accessKey} ${secretKey.toUpperCase()}`)).toEqual([accessKeyFinding]);
    expect(found(`${accessKey} ${secretKey.replace("7", "x")}`)).toEqual([accessKeyFinding]);
    expect(found(`${accessKey} ${secretKey}x`)).toEqual([accessKeyFinding]);
    expect(found(`${accessKey} ${secretKey}=`)).toEqual([accessKeyFinding]);
    expect(found(`${accessKey} x${secretKey}`)).toEqual([accessKeyFinding]);
  });

  it("reads each spelling of the secret key's label", () => {
    for (const label of ["awssecretaccesskey", "aws_secret_access_key", "awssecret", "aws_secret_key", "awssecretkey", "secretaccesskey", "secret_access_key", "secretaccess_key", "secret_accesskey"]) {
      expect(found(`${label}=${secretKey}`)).toEqual([secretKeyFinding]);
    }
  });

  it("looks for an unlabelled secret key only after an access key, not after another token", () => {
    const token = `ghp_${"A1b2C3d4E5".repeat(3)}f6G7h8`;
    expect(found(`${token} ${secretKey}`)).toEqual([secret("github-token", token, "github-token ghp_A1b2****G7h8")]);
  });

  it("finds a secret key that touches another finding on either side", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----";
    expect(found(`${accessKey} ${secretKey}${pem}`)).toEqual([accessKeyFinding, secret("private-key", pem, pem), secretKeyFinding]);
    expect(found(`${accessKey} ${pem}${secretKey}`)).toEqual([accessKeyFinding, secret("private-key", pem, pem), secretKeyFinding]);
  });

  it("reports a labelled secret key once, though it is also in the access key's window", () => {
    expect(found(`${accessKey}\naws_secret_access_key=${secretKey}`)).toEqual([accessKeyFinding, secretKeyFinding]);
  });

  it("looks in each access key's window", () => {
    const other = "AKIAZZZZZZZZZZZZZZZZ";
    const secret2 = "Zb1/abcdefghijklmnopqrstuvwxyz0123456789";
    expect(found(`${accessKey} ${secretKey}\n${other} ${secret2}`)).toEqual([
      accessKeyFinding,
      secret("aws-access-key", other, "aws-access-key AKIAZZ****ZZZZ"),
      secretKeyFinding,
      secret("aws-secret-key", secret2, "aws-secret-key ********"),
    ]);
  });
});

const header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"; // {"alg":"HS256","typ":"JWT"}
const payload = "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFubiJ9"; // {"sub":"1234567890","name":"Ann"}
const signature = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

describe("detectSecrets: JWT", () => {
  it("finds a JWT whose header (with alg) and payload decode to JSON objects", () => {
    const jwt = `${header}.${payload}.${signature}`;
    expect(found(`Authorization: Bearer ${jwt}`)).toEqual([secret("jwt", jwt, "jwt eyJhbGciOi****")]);
    expect(found(`${header}.${payload}.`)).toEqual([secret("jwt", `${header}.${payload}.`, "jwt eyJhbGciOi****")]);
  });

  it("does not flag a JWT-like string that does not decode", () => {
    expect(found(`eyJ0eXAiOiJKV1QifQ.${payload}.${signature}`)).toEqual([]); // {"typ":"JWT"}: no alg
    expect(found(`eyJhbGciOiIifQ.${payload}.${signature}`)).toEqual([]); // {"alg":""}
    expect(found(`${header}.WzEsMl0.${signature}`)).toEqual([]); // payload [1,2]
    expect(found(`${header}.bm90IGpzb24.${signature}`)).toEqual([]); // payload "not json"
    expect(found(`${header}.bnVsbA.${signature}`)).toEqual([]); // payload null
    expect(found(`eyJhbGciOiJIUzI1NiIsInR5cCI6.${payload}.${signature}`)).toEqual([]); // truncated header
    expect(found(`eyJxxxxxxxx.eyJyyyyyyyy.zzz`)).toEqual([]);
    expect(found(`${header}.MQ.${signature}`)).toEqual([]); // payload 1
  });

  it("accepts a payload that decodes to an object without starting with eyJ", () => {
    expect(found(`${header}.IHt9.sig`)).toEqual([secret("jwt", `${header}.IHt9.sig`, "jwt eyJhbGciOi****")]); // payload " {}"
  });

  it("does not flag a JWT inside a longer token", () => {
    expect(found(`x${header}.${payload}.${signature}`)).toEqual([]);
    expect(found(`${header}.${payload}.${signature}.more`)).toEqual([secret("jwt", `${header}.${payload}.${signature}`, "jwt eyJhbGciOi****")]);
  });
});

describe("detectSecrets: PEM private keys", () => {
  it("finds the BEGIN line of each private key kind, and not a public key or certificate", () => {
    for (const kind of ["RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED ", ""]) {
      const line = `-----BEGIN ${kind}PRIVATE KEY-----`;
      expect(found(`${line}\nMIIEvQIBADANBg\n-----END ${kind}PRIVATE KEY-----`)).toEqual([secret("private-key", line, line)]);
    }
    const pgp = "-----BEGIN PGP PRIVATE KEY BLOCK-----";
    expect(found(pgp)).toEqual([secret("private-key", pgp, pgp)]);
    expect(found("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----")).toEqual([]);
    expect(found("-----BEGIN CERTIFICATE-----")).toEqual([]);
    expect(found("-----BEGIN FOO PRIVATE KEY-----")).toEqual([]);
  });
});

describe("detectSecrets: tokens with a documented prefix", () => {
  const cases: [string, string, string, string, string][] = [
    // kind, token, masked, one character short, a neighbour that makes it part of a longer word
    ["github-token", `ghp_${"A1b2C3d4E5".repeat(3)}f6G7h8`, "github-token ghp_A1b2****G7h8", `ghp_${"A1b2C3d4E5".repeat(3)}f6G7h`, "_"],
    ["github-token", `github_pat_${"11ABCDEFG0".repeat(6)}`, "github-token github_p****EFG0", `github_pat_${"11ABCDEFG0".repeat(5)}11ABCDEFG`, "a"],
    ["gitlab-token", `glpat-${"Ab3-_".repeat(4)}`, "gitlab-token glpat-Ab****b3-_", `glpat-${"Ab3-_".repeat(3)}Ab3-`, "-"],
    ["slack-token", "xoxb-123456789012-1234567890123-AbCdEf", "slack-token xoxb-123****CdEf", "xoxb-12345-AbCdE", "1"],
    ["stripe-key", "sk_live_4eC39HqLyjWDarjt", "stripe-key sk_live_****Darjt".replace("Darjt", "arjt"), "sk_live_4eC39HqLyjWDarj", "_"],
    ["stripe-key", "rk_test_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key rk_test_****p7dc", "rk_test_4eC39HqLyjWDar", "x"],
    ["google-api-key", `AIza${"Sy_D-".repeat(7)}`, "google-api-key AIzaSy_D****y_D-", `AIza${"Sy_D-".repeat(6)}Sy_D`, "-"],
    ["sendgrid-key", `SG.${"a1B2c".repeat(4)}d3.${"E4f5G".repeat(8)}h6i`, "sendgrid-key SG.a1B2c****Gh6i", `SG.${"a1B2c".repeat(4)}d.${"E4f5G".repeat(8)}h6i`, "_"],
    ["npm-token", `npm_${"a1B2c3".repeat(6)}`, "npm-token npm_a1B2****B2c3", `npm_${"a1B2c3".repeat(5)}a1B2c`, "_"],
    ["openai-key", `sk-proj-${"Ab1_-".repeat(8)}`, "openai-key sk-proj-****b1_-", `sk-proj-${"Ab1_-".repeat(7)}Ab1_`, "-"],
    ["openai-key", `sk-${"a1B2c".repeat(4)}T3BlbkFJ${"d3E4f".repeat(4)}`, "openai-key sk-a1B2c****3E4f", `sk-${"a1B2c".repeat(4)}T3BlbkFJ${"d3E4f".repeat(3)}d3E4`, "a"],
    ["anthropic-key", `sk-ant-api03-${"Zx9_-".repeat(8)}`, "anthropic-key sk-ant-a****x9_-", `sk-ant-api03-${"Zx9_-".repeat(7)}Zx9_`, "_"],
    ["telegram-bot-token", `123456789:AA${"b1C2d3E4f5".repeat(3)}g6H`, "telegram-bot-token 12345678****5g6H", `123456789:AA${"b1C2d3E4f5".repeat(3)}g6`, ":"],
    ["platform-key", "platform_sk_0123456789abcdefABCDEF0123456789", "platform-key platform****6789", "platform_sk_0123456789abcdefABCDEF012345678", "_"],
    ["webhook-secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZI", "webhook-secret whsec_Mf****LPZI", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZ", "_"],
  ];

  it.each(cases)("%s: finds %s with its mask", (kind, token, masked) => {
    expect(found(`token: ${token} (do not share)`)).toEqual([secret(kind, token, masked)]);
    expect(found(token)).toEqual([secret(kind, token, masked)]);
  });

  it.each(cases)("%s: not one character short (%s)", (_kind, _token, _masked, short) => {
    expect(found(` ${short} `)).toEqual([]);
  });

  it.each(cases)("%s: not after a word character (%s)", (_kind, token, _masked, _short, before) => {
    expect(found(`${before}${token}`)).toEqual([]);
  });

  it("finds tokens up to their upper length and not beyond their word", () => {
    expect(found(`platform_sk_0123456789abcdefABCDEF0123456789a`)).toEqual([]);
    expect(found(`npm_${"a1B2c3".repeat(6)}b`)).toEqual([]);
    expect(found(`ghp_${"A1b2C3d4E5".repeat(3)}f6G7h8_`)).toEqual([]);
    expect(found(`AIza${"Sy_D-".repeat(7)}x`)).toEqual([]);
    expect(found(`123456789:AA${"b1C2d3E4f5".repeat(3)}g6Hx`)).toEqual([]);
    expect(found(`12345:AA${"b1C2d3E4f5".repeat(3)}g6H`)).toEqual([]);
    expect(found(`1234567890123:AA${"b1C2d3E4f5".repeat(3)}g6H`)).toEqual([]);
    expect(found(`sk_live_4eC39HqLyjWDarjt_`)).toEqual([]);
    expect(found(`pk_live_4eC39HqLyjWDarjtT1zdp7dc`)).toEqual([]);
    expect(found(`xoxz-123456789012-AbCdEfGh`)).toEqual([]);
  });

  it("finds a Slack webhook URL, with at least 16 characters in its last part", () => {
    const hook = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXX";
    expect(found(`post to ${hook}`)).toEqual([secret("slack-webhook", hook, "slack-webhook https://hooks.slack.com/****")]);
    const workflow = "https://hooks.slack.com/workflows/T0/A1/abcdefgh12345678";
    expect(found(workflow)).toEqual([secret("slack-webhook", workflow, "slack-webhook https://hooks.slack.com/****")]);
    expect(found(hook.slice(0, -1))).toEqual([]);
  });
});

describe("detectSecrets: credentials in URLs", () => {
  it("finds the password of scheme://user:password@host", () => {
    expect(found("DATABASE_URL=postgres://admin:S3cretPass@db.example.com/app")).toEqual([secret("url-credentials", "S3cretPass", "url-password ********")]);
    expect(found("ftp://u:abc@h.example")).toEqual([secret("url-credentials", "abc", "url-password ********")]);
  });

  it("does not flag a placeholder, a too short password, or a URL without one", () => {
    expect(found("https://user:password@example.com")).toEqual([]);
    expect(found("https://user:changeme@example.com")).toEqual([]);
    expect(found("https://user:<password>@example.com")).toEqual([]);
    expect(found("ftp://u:ab@h.example")).toEqual([]);
    expect(found("https://user@example.com:8443/path")).toEqual([]);
  });
});

describe("detectSecrets: password phrases", () => {
  const pw = (value: string) => secret("password", value, "password ********");

  it("finds the value after password/parol/şifrə/пароль and a separator", () => {
    expect(found("password: Tr0ub4dor&3")).toEqual([pw("Tr0ub4dor&3")]);
    expect(found("Your password is hunter2x, keep it.")).toEqual([pw("hunter2x,")]);
    expect(found("passwd=abc123")).toEqual([pw("abc123")]);
    expect(found("Parol: Gizli2024")).toEqual([pw("Gizli2024")]);
    expect(found("şifrə - Gizli2024")).toEqual([pw("Gizli2024")]);
    expect(found("Пароль: Qwerty123")).toEqual([pw("Qwerty123")]);
    expect(found("пароль равен Qwerty123")).toEqual([pw("Qwerty123")]);
    expect(found(`password: "S3cr3t!x"`)).toEqual([pw("S3cr3t!x")]);
  });

  it("wants 6 to 128 characters and two character classes, or 12 characters", () => {
    expect(found("password: abc12")).toEqual([]);
    expect(found("password: abc123")).toEqual([pw("abc123")]);
    expect(found("password: abcdefghijk")).toEqual([]);
    expect(found("password: abcdefghijkl")).toEqual([pw("abcdefghijkl")]);
    expect(found("password: ABCDEFGHIJK")).toEqual([]);
    expect(found("password: ABCDEf")).toEqual([pw("ABCDEf")]);
    expect(found("password: 1234567")).toEqual([]);
    expect(found("password: 12345!")).toEqual([pw("12345!")]);
    expect(found("password: abcde!")).toEqual([pw("abcde!")]);
    expect(found(`password: ${"a1".repeat(64)}`)).toEqual([pw("a1".repeat(64))]);
    expect(found(`password: "abc12"`)).toEqual([]);
    expect(found(`password: abc12.`)).toEqual([]);
    expect(found("password: ab.cde")).toEqual([pw("ab.cde")]);
    expect(found("password: secret123x")).toEqual([pw("secret123x")]);
    expect(found("password: abc`de")).toEqual([pw("abc`de")]);
  });

  it("does not flag placeholders", () => {
    for (const value of ["********", "xxxxxxxx", "<password>", "{{password}}", "${DB_PASSWORD}", "%db_pass%", "your_password", "password123", "changeme", "REDACTED", "[hidden]", "************", "{db_pass1}", "$DB_PASSWORD", "yourpassword"]) {
      expect(found(`password: ${value}`)).toEqual([]);
    }
  });

  it("does not flag the word in prose, or a longer word", () => {
    expect(found("The password field is required")).toEqual([]);
    expect(found("Reset your password here")).toEqual([]);
    expect(found("passwords: Tr0ub4dor&3")).toEqual([]);
    expect(found("mypassword: Tr0ub4dor&3")).toEqual([]);
    expect(found("password_hint: Tr0ub4dor&3")).toEqual([]);
    expect(found("password Tr0ub4dor&3")).toEqual([]);
    expect(found("password Tr0ub=4dor")).toEqual([]);
  });
});

describe("detectSecrets: generic labels", () => {
  it("finds a value of 16+ characters with letters and digits after an api key label", () => {
    expect(found("api_key=abcd1234efgh5678ijkl")).toEqual([secret("api-key", "abcd1234efgh5678ijkl", "api-key abcd12****ijkl")]);
    expect(found("Authorization: Bearer abcd1234efgh5678ijkl")).toEqual([secret("api-key", "abcd1234efgh5678ijkl", "api-key abcd12****ijkl")]);
    expect(found(`X-Api-Key: "abcd1234efgh5678"`)).toEqual([secret("api-key", "abcd1234efgh5678", "api-key abcd1****5678")]);
  });

  it("reads each spelling of the labels", () => {
    for (const label of ["apiKey", "api_key", "api-key", "apisecret", "api_secret", "secretkey", "secret-key", "clientsecret", "client_secret", "accesstoken", "access_token", "authtoken", "auth-token", "privatetoken", "private_token", "x-api-key", "Bearer", "API_KEY"]) {
      expect(found(`${label}: abcd1234efgh5678ijkl`)).toEqual([secret("api-key", "abcd1234efgh5678ijkl", "api-key abcd12****ijkl")]);
    }
  });

  it("does not flag a short, letters-only, digits-only or placeholder value, or a label inside a word", () => {
    expect(found("api_key=abcd1234efgh567")).toEqual([]);
    expect(found("api_key: abcd1234efgh567")).toEqual([]);
    expect(found("api_key=abcdefghijklmnopqrst")).toEqual([]);
    expect(found("api_key=12345678901234567890")).toEqual([]);
    expect(found("client_secret=your-password")).toEqual([]);
    expect(found("myapi_key=abcd1234efgh5678ijkl")).toEqual([]);
  });

  it("reports a token with a named format once, under its format", () => {
    expect(found("api_key: sk_live_4eC39HqLyjWDarjtT1zdp7dc")).toEqual([secret("stripe-key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key sk_live_****p7dc")]);
  });
});

describe("detectSecrets: several secrets", () => {
  it("reports tokens that touch each other", () => {
    const pem = "-----BEGIN PRIVATE KEY-----";
    const token = `ghp_${"A1b2C3d4E5".repeat(3)}f6G7h8`;
    const github = secret("github-token", token, "github-token ghp_A1b2****G7h8");
    expect(found(`${token}${pem}`)).toEqual([secret("private-key", pem, pem), github]);
    expect(found(`${pem}${token}`)).toEqual([secret("private-key", pem, pem), github]);
  });

  it("reports each, in the order of the rules, with its span", () => {
    const text = "password: Tr0ub4dor&3 and ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5f6G7h8";
    expect(detectSecrets(text).map((m) => [m.value.split(":")[0], m.start, m.end])).toEqual([
      ["github-token", 26, 66],
      ["password", 10, 21],
    ]);
  });
});
