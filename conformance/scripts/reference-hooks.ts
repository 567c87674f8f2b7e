// Hooks for the reference run: the mailbox-reading operations can only answer 200 on a mailbox
// that holds mail, and the fuzzer cannot make mail arrive. reference-server.ts delivers a few
// messages over SMTP to the fixture mailbox and passes their ids here; every other positive case
// of those operations is pointed at them (the rest keep the generated ids and meet 404s).
import type { Hooks } from "../engine/hooks.ts";
import type { Case } from "../engine/types.ts";

export interface ReadingFixture {
  mailboxId: string;
  messageIds: string[];
  rfcMessageIds: string[];
}

export const READING_FIXTURE_ENV = "CONFORMANCE_READING_FIXTURE";

let turn = 0;
// Read when used: this module is imported (for the constant above) before the fixture exists.
const fixture = () => JSON.parse(process.env[READING_FIXTURE_ENV] ?? "null") as ReadingFixture | null;

function onFixture(c: Case, extra: (i: number, f: ReadingFixture) => Partial<Case>): Case | void {
  const f = fixture();
  if (!f || c.mode !== "positive" || turn++ % 2 === 1) return;
  const patch = extra(turn, f);
  return { ...c, ...patch, pathParams: { ...c.pathParams, id: f.mailboxId, ...patch.pathParams } };
}

const hooks: Hooks = {
  before: {
    listMailboxMessages: (c) => onFixture(c, () => ({})),
    getMailboxMessage: (c) => onFixture(c, (i, f) => ({ pathParams: { msgId: f.messageIds[i % f.messageIds.length] } })),
    findMailboxMessage: (c) => onFixture(c, (i, f) => ({ query: { ...c.query, value: `<${f.rfcMessageIds[i % f.rfcMessageIds.length]}>` } })),
  },
};
export default hooks;
