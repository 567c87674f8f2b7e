// Where a delivery's durable bookkeeping goes, for the webhook benchmark's README: runs
// `benchmarkWebhooks` (bench.ts) with every claim, load and record call of the queue and the
// delivery store timed in place, and prints microseconds per call and per delivery. By hand:
// `node bench/webhooks/bench-bookkeeping.ts [--rounds 5] [--count 2000]`. The wrapping costs a
// clock read per call; the CPU per delivery it prints is a little above bench.ts's own.
import { parseArgs } from "node:util";
import { JobQueue } from "../../server/jobs/job-queue.ts";
import { SqlDeliveryStore } from "../../server/webhooks/delivery-store.ts";
import { benchmarkWebhooks, printWebhookBench, WARM_UP_ROUNDS } from "./bench.ts";

const spent = new Map<string, { ns: bigint; calls: number }>();

function timed(proto: object, name: string): void {
  const target = proto as Record<string, (...args: unknown[]) => unknown>;
  const original = target[name];
  target[name] = function (this: unknown, ...args: unknown[]) {
    const started = process.hrtime.bigint();
    const done = () => {
      const s = spent.get(name) ?? { ns: 0n, calls: 0 };
      s.ns += process.hrtime.bigint() - started;
      s.calls++;
      spent.set(name, s);
    };
    // The calls answer promises: timed until they settle.
    return (original.apply(this, args) as Promise<unknown>).finally(done);
  };
}

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" }, count: { type: "string", default: "2000" } } });
const rounds = Number(values.rounds);
const count = Number(values.count);
timed(JobQueue.prototype, "claim");
timed(JobQueue.prototype, "record");
timed(SqlDeliveryStore.prototype, "load");
printWebhookBench(await benchmarkWebhooks({ rounds, count }), count);
// Every delivery the engine made, warm-up included, since the wrapped calls count those too.
const deliveries = (rounds + WARM_UP_ROUNDS) * count;
let total = 0;
for (const [name, { ns, calls }] of spent) {
  const perDelivery = Number(ns) / 1000 / deliveries;
  total += perDelivery;
  console.log(`  ${name.padEnd(7)} ${String(calls).padStart(6)} calls, ${(Number(ns) / 1000 / calls).toFixed(1).padStart(7)} us per call, ${perDelivery.toFixed(1)} us per delivery`);
}
console.log(`  claim + load + record: ${total.toFixed(1)} us per delivery (${deliveries} deliveries, warm-up included)`);
