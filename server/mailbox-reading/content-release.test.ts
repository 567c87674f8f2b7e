// A message's bytes (message_contents) are shared by its copies (group fan-out, several
// recipients) and go when the last copy goes, on both stores (a trigger on each). On PostgreSQL,
// two transactions deleting the last two copies at once each saw the other's copy still there
// under read committed, and the bytes stayed forever; its release trigger now locks the content
// row first, so the second one waits and sees the first's delete. SQLite has one writer: that race
// cannot happen there, so that case runs on PostgreSQL alone.
import { describe, expect, it } from "vitest";
import { backends, newMailDomainRow, newProject, sql, useStore, type StoreHandle } from "../test/backends.ts";

async function twoCopies(store: StoreHandle): Promise<{ content: number; copies: number[] }> {
  const c = store.main;
  const project = await newProject(c);
  const domain = await newMailDomainRow(c, project, `release-${project.toLowerCase()}.test`);
  const mailboxes: string[] = [];
  for (const name of ["a", "b"]) {
    const id = `mbx_${name}_${project}`;
    await sql(c, "INSERT INTO mailboxes (id, project_id, domain_id, kind, email, created_at) VALUES (?, ?, ?, 'mailbox', ?, ?)",
      [id, project, domain, `${name}-${project}@release.test`.toLowerCase(), new Date().toISOString()]);
    mailboxes.push(id);
  }
  const [{ id: content }] = await sql<{ id: number }>(c, "INSERT INTO message_contents (raw, size, detail) VALUES (?, 3, '{}') RETURNING id", [Buffer.from("abc")]);
  const copies: number[] = [];
  for (const mailbox of mailboxes) {
    const [{ id }] = await sql<{ id: number }>(c,
      `INSERT INTO mailbox_messages (mailbox_id, uid, content_id, received_ms, subject, from_json, from_addrs, to_addrs, has_attachment, rfc_message_id, preview)
       VALUES (?, 1, ?, 0, '', '[]', ' ', ' ', false, '<x@test>', '') RETURNING id`, [mailbox, content]);
    copies.push(id);
  }
  return { content, copies };
}

describe.each(backends)("message content release on %s", (backend) => {
  const store = useStore(backend);

  it("keeps the bytes while a copy is left, and drops them with the last one", async () => {
    const { content, copies } = await twoCopies(store);
    await sql(store.main, "DELETE FROM mailbox_messages WHERE id = ?", [copies[0]]);
    expect(await sql(store.main, "SELECT id FROM message_contents WHERE id = ?", [content])).toHaveLength(1);
    await sql(store.main, "DELETE FROM mailboxes WHERE id = (SELECT mailbox_id FROM mailbox_messages WHERE id = ?)", [copies[1]]);
    expect(await sql(store.main, "SELECT id FROM message_contents WHERE id = ?", [content])).toHaveLength(0);
  });
});

describe("message content release under two transactions at once (postgres: SQLite has one writer)", () => {
  const store = useStore("postgres");

  it("drops the bytes when the last two copies are deleted at once by two transactions", async () => {
    if (store.main.backend !== "postgres") throw new Error("unreachable");
    const pg = store.main.pg;
    const { content, copies } = await twoCopies(store);
    const first = await pg.pool.connect();
    const second = await pg.pool.connect();
    try {
      await first.query("BEGIN");
      await first.query("DELETE FROM mailbox_messages WHERE id = $1", [copies[0]]);
      await second.query("BEGIN");
      const [{ pid }] = (await second.query("SELECT pg_backend_pid() AS pid")).rows as { pid: number }[];
      // Runs while the first has not committed; with the lock it waits for the first's commit.
      let done = false;
      const secondDelete = second.query("DELETE FROM mailbox_messages WHERE id = $1", [copies[1]]).finally(() => (done = true));
      // The first commits only once the second has finished its delete or waits on a lock: the
      // second's trigger has looked (or is about to look) while the first's copy was uncommitted.
      while (!done && !(await pg.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [pid])).length) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await first.query("COMMIT");
      await secondDelete;
      await second.query("COMMIT");
    } finally {
      first.release();
      second.release();
    }
    expect(await sql(store.main, "SELECT id FROM mailbox_messages WHERE content_id = ?", [content])).toHaveLength(0);
    expect(await sql(store.main, "SELECT id FROM message_contents WHERE id = ?", [content])).toHaveLength(0);
  });
});
