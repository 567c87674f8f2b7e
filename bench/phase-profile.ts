// Per-phase measurement for the benchmarks whose targets run on the calling thread (webhook
// deliveries, the mail relay): items per second and this thread's CPU per item, which holds on a
// loaded machine where the rate does not; and a V8 CPU profile of the measured phases only (no
// start-up, no baseline rounds), written where `--profile FILE` says and read like the output of
// `node --cpu-prof` (Chrome DevTools, or any .cpuprofile reader).
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

/** Runs `fn` (which answers how many items it did): items per second and CPU microseconds per item. */
export async function measure(fn: () => Promise<number>): Promise<{ rate: number; cpuUs: number; items: number }> {
  const cpu = process.threadCpuUsage();
  const started = performance.now();
  const items = await fn();
  const seconds = (performance.now() - started) / 1000;
  const used = process.threadCpuUsage(cpu);
  return { rate: items / seconds, cpuUs: (used.user + used.system) / items, items };
}

interface CpuProfile {
  nodes: { id: number; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Profiles the phases passed to `phase`, when given a file; otherwise runs them as they are. */
export class PhaseProfiler {
  private readonly file: string | undefined;
  private readonly session: Session | undefined;
  private readonly profiles: CpuProfile[] = [];

  constructor(file: string | undefined) {
    this.file = file;
    this.session = file ? new Session() : undefined;
  }

  async phase<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.session) return fn();
    if (this.profiles.length === 0) {
      this.session.connect();
      await this.session.post("Profiler.enable");
    }
    await this.session.post("Profiler.start");
    try {
      return await fn();
    } finally {
      this.profiles.push((await this.session.post("Profiler.stop")).profile as CpuProfile);
    }
  }

  /** Writes the phases as one profile (node ids kept apart, samples one after the other). */
  write(): void {
    if (!this.session || !this.file || this.profiles.length === 0) return;
    this.session.disconnect();
    const merged: CpuProfile = { nodes: [], startTime: this.profiles[0].startTime, endTime: this.profiles[0].startTime, samples: [], timeDeltas: [] };
    let offset = 0;
    for (const p of this.profiles) {
      const shift = (id: number) => id + offset;
      for (const n of p.nodes) merged.nodes.push({ ...n, id: shift(n.id), children: n.children?.map(shift) });
      merged.samples.push(...p.samples.map(shift));
      merged.timeDeltas.push(...p.timeDeltas);
      merged.endTime += p.endTime - p.startTime;
      offset += Math.max(...p.nodes.map((n) => n.id));
    }
    writeFileSync(this.file, JSON.stringify(merged));
  }
}
