// A stranger forging a hosted domain in From (decision I3), over real SMTP from 127.0.0.2 with
// the platform's own DNS server publishing the domains' DMARC records: p=reject is refused at
// DATA with 550 5.7.1 and stores nothing; p=quarantine (what a hosted mail domain publishes) is
// stored marked, and the API and webmail (headless Chromium) show the mark. Mail that passes, or
// whose domain publishes no policy, is delivered unmarked.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../test/support/chromium.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { smtpTransport } from "../test/smtp.ts";

const STRANGER = "127.0.0.2";
let p: TestPlatform;
let quarantining: Tenant;
let rejecting: Tenant;
let inbox: string;
let browser: Browser | undefined;

beforeAll(async () => {
  p = await startTestPlatform();
  quarantining = await p.newTenant("dmarcq");
  rejecting = await p.newTenant("dmarcr");
  inbox = (await quarantining.api("POST", "/v1/mailboxes", { name: "alice", domain: quarantining.domain, password: "correct horse" })).body.id;
  await rejecting.api("POST", "/v1/mailboxes", { name: "bob", domain: rejecting.domain, password: "correct horse" });
  // The rejecting domain's owner tightens the DMARC record the platform published (p=quarantine).
  const records = (await rejecting.api("GET", `/v1/dns/${rejecting.domain}/records`)).body.records as { id: string; name: string; type: string; data: string }[];
  const dmarc = records.find((r) => r.type === "TXT" && r.data.startsWith("v=DMARC1"))!;
  expect((await rejecting.api("DELETE", `/v1/dns/${rejecting.domain}/records/${dmarc.id}`)).status).toBe(200);
  const created = await rejecting.api("POST", `/v1/dns/${rejecting.domain}/records`, { type: "TXT", name: "_dmarc", data: "v=DMARC1; p=reject", ttl: 60 });
  expect(created.status).toBe(200);
  expect(await p.services.resolver.resolveTxtJoinedOrEmpty(`_dmarc.${rejecting.domain}`)).toEqual(["v=DMARC1; p=reject"]);
  expect(await p.services.resolver.resolveTxtJoinedOrEmpty(`_dmarc.${quarantining.domain}`)).toEqual([expect.stringMatching(/^v=DMARC1; p=quarantine/)]);
});
afterAll(async () => {
  await browser?.close();
  await p.stop();
});

/** Sends from the stranger's address; resolves with the server's answer, accepted or not. */
async function strangerSends(mail: { envelopeFrom: string; from: string; to: string; subject: string }): Promise<string> {
  const transport = smtpTransport(p.smtp!.port, { localAddress: STRANGER });
  try {
    const info = await transport.sendMail({ envelope: { from: mail.envelopeFrom, to: mail.to }, from: mail.from, to: mail.to, subject: mail.subject, text: "Please wire the money today." });
    return info.response;
  } catch (error) {
    return (error as { response?: string }).response ?? String(error);
  } finally {
    transport.close();
  }
}

const listed = async (subject: string) =>
  ((await quarantining.api("GET", `/v1/mailboxes/${inbox}/messages?limit=500`)).body.messages as { id: string; subject: string; quarantined: boolean }[]).find((m) => m.subject === subject);
const storedSubjects = () => (p.db.prepare("SELECT subject FROM mailbox_messages").all() as { subject: string }[]).map((r) => r.subject);

describe("From a hosted domain that fails DMARC", () => {
  it("p=reject: 550 5.7.1 at the end of DATA, naming the domain and its policy; nothing stored", async () => {
    const response = await strangerSends({ envelopeFrom: `ceo@${rejecting.domain}`, from: `CEO <ceo@${rejecting.domain}>`, to: `bob@${rejecting.domain}`, subject: "forged, reject" });
    expect(response).toMatch(new RegExp(`^550 5\\.7\\.1 message refused: its From domain ${rejecting.domain.replace(".", "\\.")} fails DMARC .* p=reject`));
    expect(storedSubjects()).not.toContain("forged, reject");
  });

  it("p=reject with an envelope sender of another domain (SPF passes nothing aligned): still 550", async () => {
    const response = await strangerSends({ envelopeFrom: "bounce@stranger.example", from: `ceo@${rejecting.domain}`, to: `bob@${rejecting.domain}`, subject: "forged, reject 2" });
    expect(response).toMatch(/^550 5\.7\.1 /);
    expect(storedSubjects()).not.toContain("forged, reject 2");
  });

  it("p=quarantine: stored and marked quarantined in the list and the message, with dmarc=fail in Authentication-Results", async () => {
    const response = await strangerSends({ envelopeFrom: `ceo@${quarantining.domain}`, from: `CEO <ceo@${quarantining.domain}>`, to: `alice@${quarantining.domain}`, subject: "forged, quarantine" });
    expect(response).toMatch(/^250 /);
    const summary = await listed("forged, quarantine");
    expect(summary).toMatchObject({ quarantined: true });
    const message = (await quarantining.api("GET", `/v1/mailboxes/${inbox}/messages/${summary!.id}`)).body;
    expect(message.quarantined).toBe(true);
    const results = (message.headers as { name: string; value: string }[]).find((h) => h.name === "Authentication-Results")!.value;
    expect(results).toMatch(new RegExp(`dmarc=fail .*header\\.from=${quarantining.domain.replace(".", "\\.")}`));
    // A webhook subscriber sees the same mark in mail.received.
    const event = p.db.prepare("SELECT payload FROM events WHERE type = 'mail.received' AND project_id = ? ORDER BY rowid DESC LIMIT 1").get(quarantining.projectId) as { payload: string };
    expect(JSON.parse(event.payload).data).toMatchObject({ subject: "forged, quarantine", quarantined: true });
  });

  it("a From naming a second domain cannot walk past p=reject: each author domain is evaluated, 550", async () => {
    const response = await strangerSends({ envelopeFrom: "x@stranger.example", from: `helper@stranger.example, ceo@${rejecting.domain}`, to: `bob@${rejecting.domain}`, subject: "two domains, reject" });
    expect(response).toMatch(new RegExp(`^550 5\\.7\\.1 message refused: its From domain ${rejecting.domain.replace(".", "\\.")} fails DMARC`));
    expect(storedSubjects()).not.toContain("two domains, reject");
  });

  it("a From naming a second domain cannot walk past DMARC: marked quarantined", async () => {
    const response = await strangerSends({ envelopeFrom: "x@stranger.example", from: `ceo@${quarantining.domain}, helper@stranger.example`, to: `alice@${quarantining.domain}`, subject: "two author domains" });
    expect(response).toMatch(/^250 /);
    expect(await listed("two author domains")).toMatchObject({ quarantined: true });
  });

  it("a From domain without a DMARC policy is delivered unmarked", async () => {
    const response = await strangerSends({ envelopeFrom: "friend@stranger.example", from: "friend@stranger.example", to: `alice@${quarantining.domain}`, subject: "no policy" });
    expect(response).toMatch(/^250 /);
    expect(await listed("no policy")).toMatchObject({ quarantined: false });
  });
});

// Chromium comes from scripts/install-system-deps.sh, which `npm test` runs first: no skip.
describe("webmail shows the mark", () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });

  it("the inbox tags the quarantined message's sender, its page warns before the sender's name, an unmarked one shows neither", async () => {
    await strangerSends({ envelopeFrom: `ceo@${quarantining.domain}`, from: `CEO <ceo@${quarantining.domain}>`, to: `alice@${quarantining.domain}`, subject: "wire money (webmail)" });
    await strangerSends({ envelopeFrom: "friend@stranger.example", from: "friend@stranger.example", to: `alice@${quarantining.domain}`, subject: "lunch (webmail)" });
    const link = (await quarantining.api("POST", "/v1/webmail/login-link", { mailbox: `alice@${quarantining.domain}` })).body;
    const page = await (await browser!.newContext()).newPage();
    await page.goto(link.url);
    const row = (subject: string) => page.locator("tr.message", { hasText: subject });
    expect(await row("wire money (webmail)").locator(".quarantine-tag").textContent()).toBe("Unverified sender");
    expect(await row("lunch (webmail)").locator(".quarantine-tag").count()).toBe(0);

    await row("wire money (webmail)").locator("a").click();
    expect(await page.textContent("#subject")).toBe("wire money (webmail)");
    expect(await page.locator("#quarantine-warning").isVisible()).toBe(true);
    expect(await page.textContent("#quarantine-warning")).toMatch(/not verified as coming from the domain in its From address/);

    await page.goto(`${p.url}/webmail`);
    await row("lunch (webmail)").locator("a").click();
    expect(await page.textContent("#subject")).toBe("lunch (webmail)");
    expect(await page.locator("#quarantine-warning").count()).toBe(0);
  });
});
