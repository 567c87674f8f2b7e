// kill -9 of one of two instances under load (issue 15, decision P2): sends keep coming through
// nginx, the killed instance dies holding relay jobs in flight, and the surviving instance runs
// them at once (a lease is void when its holder has no session left), so every send answered 200
// reaches the recipient's server. Relaying is at least once: a message the killed instance had
// handed over but not yet recorded goes out again; duplicates are printed, lost messages fail.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startScaleOut, type ScaleOut } from "../../test/support/scale-out.ts";
import { apiFor } from "../test/harness.ts";
import { startSmtpSink, type SmtpSink } from "../test/smtp-sink.ts";
import { tally } from "./event-receiver.ts";
import { platformMessageId, recipientZones, senderDomain } from "./recipient-zones.ts";
import { until } from "./until.ts";

let deployment: ScaleOut;
let sink: SmtpSink;
let release: () => void = () => {};

beforeAll(async () => {
  sink = await startSmtpSink();
  deployment = await startScaleOut({ env: { RELAY_PORT: String(sink.port), RELAY_ALLOW_LOOPBACK: "on" } });
}, 180_000);

afterAll(async () => {
  release();
  await deployment?.stop();
  await sink?.close();
});

/** application_name of each instance's sessions (`platform:<random>`, server/db/postgres/pg.ts). */
async function instanceNames(): Promise<Set<string>> {
  const { rows } = await deployment.db.query<{ name: string }>("SELECT DISTINCT application_name AS name FROM pg_stat_activity WHERE application_name LIKE 'platform:%'");
  return new Set(rows.map((r) => r.name));
}

it("the other instance finishes the killed one's jobs and nothing accepted is lost", { timeout: 900_000 }, async () => {
  const project = await deployment.project("kill");
  const api = apiFor(deployment.proxy.url, project.key);
  const zones = ["k0.test", "k1.test"];
  await recipientZones(deployment, api, project.id, zones);
  await senderDomain(deployment, api, project.id, "sender.test");

  // The recipients' server takes each message and then holds its answer, so both instances
  // are in the middle of deliveries when one of them dies.
  sink.gate = new Promise<void>((resolve) => (release = resolve));
  const accepted: string[] = [];
  const refused = new Map<number, number>();
  let n = 0;
  const send = async (): Promise<void> => {
    const i = n++;
    let res;
    try {
      res = await api("POST", "/v1/mail/send", { from: "load@sender.test", to: `r${i}@${zones[i % zones.length]}`, subject: `load ${i}`, text: `message ${i}` });
    } catch {
      return; // no answer: not accepted
    }
    if (res.status === 200) accepted.push((res.body as { id: string }).id);
    else refused.set(res.status, (refused.get(res.status) ?? 0) + 1);
  };
  const clients = (count: number, enough: () => boolean) =>
    Promise.all(Array.from({ length: 8 }, async () => {
      while (!enough() && n < count) await send();
    }));
  await clients(200, () => accepted.length >= 200);
  expect(accepted.length).toBe(200);
  await until("both instances hold relay jobs", async () => {
    const { rows } = await deployment.db.query<{ n: string }>("SELECT COUNT(DISTINCT leased_by) AS n FROM jobs WHERE kind = 'mail.relay' AND leased_by IS NOT NULL");
    return Number(rows[0].n) === 2;
  });
  const before = await instanceNames();
  const leases = (await deployment.db.query<{ leased_by: string; payload: string }>("SELECT leased_by, payload FROM jobs WHERE kind = 'mail.relay' AND leased_by IS NOT NULL")).rows;

  // More sends under way through nginx while one instance is killed; nginx moves on to the other.
  const acceptedBeforeKill = accepted.length;
  const load = clients(100_000, () => accepted.length >= acceptedBeforeKill + 200);
  const [victim, survivor] = deployment.instances;
  await victim.kill9();
  await load;
  // The killed instance's sessions end with its process; its name is the one gone.
  let dead = "";
  await until("the killed instance's sessions are gone", async () => {
    const now = await instanceNames();
    dead = [...before].find((name) => !now.has(name)) ?? "";
    return dead !== "";
  });
  const heldByDead = leases.filter((l) => l.leased_by === dead).map((l) => (JSON.parse(l.payload) as { messageId: string }).messageId);
  expect(heldByDead.length).toBeGreaterThan(0);

  release();
  const survivorApi = apiFor(survivor.url, project.key);
  await until("every accepted send at the sink and no relay job left", async () => {
    const relayed = new Set(sink.messages.map(platformMessageId));
    if (accepted.some((id) => !relayed.has(id))) return false;
    const { rows } = await deployment.db.query<{ n: string }>("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'mail.relay'");
    return Number(rows[0].n) === 0;
  }, { tries: 6000, everyMs: 100 });

  const relayed = tally(sink.messages, platformMessageId);
  const lost = accepted.filter((id) => !relayed.has(id));
  const duplicates = [...relayed.values()].reduce((d, c) => d + c - 1, 0);
  console.log(
    `scale-out kill -9: ${accepted.length} sends accepted (${acceptedBeforeKill} before the kill), not accepted: ${JSON.stringify(Object.fromEntries(refused))}, ` +
      `${heldByDead.length} relay jobs held by the killed instance, ${sink.messages.length} messages at the sink, ${lost.length} lost, ${duplicates} duplicates`,
  );
  expect(lost).toEqual([]);
  // Whatever nginx could not hand to a live instance is a proxy error, never an answer of ours.
  expect([...refused.keys()].every((status) => status === 502)).toBe(true);
  for (const id of [...heldByDead, ...accepted.slice(0, 20)]) {
    expect((await survivorApi("GET", `/v1/mail/messages/${id}`)).body).toMatchObject({ message: { status: "delivered" } });
  }
});
