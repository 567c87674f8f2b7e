// Recipient domains hosted on the deployment's own DNS: `<zone>` with MX mx.<zone> and
// mx.<zone> A 127.0.0.1, so every instance's relay finds the loopback sink (RELAY_PORT) through
// real lookups; zones made on one instance (or the console) reach the others' DNS caches by NOTIFY.
import type { SinkMessage } from "../test/smtp-sink.ts";
import type { Api } from "../test/harness.ts";
import type { ScaleOut } from "../../test/support/scale-out.ts";

export async function recipientZones(deployment: ScaleOut, api: Api, projectId: string, zones: string[]): Promise<void> {
  for (const zone of zones) {
    await deployment.admin("zones", "create", zone, "--project", projectId);
    for (const record of [
      { type: "MX", name: "@", data: `mx.${zone}`, priority: 10 },
      { type: "A", name: "mx", data: "127.0.0.1" },
    ]) {
      const res = await api("POST", `/v1/dns/${zone}/records`, record);
      if (res.status !== 200) throw new Error(`record in ${zone} answered ${res.status}: ${JSON.stringify(res.body)}`);
    }
  }
}

/** A sender domain of the project: a zone of its own, connected as a mail domain. */
export async function senderDomain(deployment: ScaleOut, api: Api, projectId: string, zone: string): Promise<void> {
  await deployment.admin("zones", "create", zone, "--project", projectId);
  const res = await api("POST", "/v1/maildomains", { name: zone });
  if (res.status !== 200) throw new Error(`mail domain ${zone} answered ${res.status}: ${JSON.stringify(res.body)}`);
}

/** The platform's message id (`msg_...`) a relayed message carries in its Message-ID header. */
export function platformMessageId(m: SinkMessage): string | undefined {
  const head = m.raw.subarray(0, m.raw.indexOf("\r\n\r\n")).toString();
  return /^Message-ID:\s*<(msg_[a-z0-9]+)@/im.exec(head)?.[1];
}
