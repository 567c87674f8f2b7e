// CPU time of a PostgreSQL cluster, from /proc: the postmaster and every process it forked (one
// backend per connection, the WAL and background writers), with what its ended children used.
// On PostgreSQL the platform's CPU per request leaves out the server's side of every statement;
// a change in statements per send shows here.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";

const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());

/** utime, stime, cutime, cstime and ppid of a process (fields after the command's closing parenthesis). */
function stat(pid: string): { ppid: number; own: number; children: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined; // ended meanwhile
  }
  const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // f[0] is field 3 (state): ppid is field 4, utime..cstime fields 14..17.
  return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
}

/** A reader of the cluster's CPU in µs, found through the postmaster of a backend of `url`. */
export async function postgresCpu(url: string): Promise<() => number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  const postmaster = stat(String(rows[0].pid))!.ppid;
  await client.end();
  return () => {
    let ticks = 0;
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      const s = stat(pid);
      if (!s) continue;
      if (Number(pid) === postmaster) ticks += s.own + s.children;
      else if (s.ppid === postmaster) ticks += s.own;
    }
    return (ticks / ticksPerSecond) * 1e6;
  };
}
