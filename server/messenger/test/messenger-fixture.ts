// A test platform wired to a Bot API emulator on loopback, and a forward receiver that records
// what it gets and answers with a status the test chooses.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { defaults, type ServerConfig } from "../../config.ts";
import type { ManualClock } from "../../jobs/clock.ts";
import type { PlatformOptions } from "../../platform.ts";
import { startTestPlatform, type TestPlatform } from "../../test/harness.ts";
import type { PresetConfig } from "../presets.ts";
import { startBotApiEmulator, type BotApiEmulator } from "./bot-api-emulator.ts";

export interface MessengerSetup {
  emulator: BotApiEmulator;
  platform: TestPlatform;
  managerToken: string;
  stop(): Promise<void>;
}

export async function startMessenger(options: { presets?: PresetConfig[]; limits?: Partial<ServerConfig["limits"]>; clock?: ManualClock; platform?: PlatformOptions; dataDir?: string; emulator?: BotApiEmulator } = {}): Promise<MessengerSetup> {
  const emulator = options.emulator ?? (await startBotApiEmulator());
  const manager = emulator.bot("platform_manager_bot") ?? emulator.addBot({ username: "platform_manager_bot", firstName: "Platform", canManageBots: true });
  const platform = await startTestPlatform(
    {
      allowHttpLoopbackWebhooks: true,
      limits: { ...defaults.limits, ...options.limits },
      messenger: { ...defaults.messenger, apiRoot: emulator.url, managerToken: manager.token, presets: options.presets ?? [] },
    },
    { ...(options.clock ? { clock: options.clock, runWorker: false } : {}), ...options.platform },
  );
  return {
    emulator,
    platform,
    managerToken: manager.token,
    async stop() {
      await platform.stop();
      if (!options.emulator) await emulator.close();
    },
  };
}

export interface Receiver {
  url: string;
  bodies: string[];
  headers: Record<string, string | string[] | undefined>[];
  /** Status the next requests get. */
  status: number;
  /** Every request received, answered 2xx or not. */
  attempts: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: "", bodies: [], headers: [], status: 200, attempts: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      receiver.attempts++;
      if (receiver.status < 300) {
        receiver.bodies.push(Buffer.concat(chunks).toString("utf8"));
        receiver.headers.push(req.headers);
      }
      res.writeHead(receiver.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bot-updates`;
  receiver.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return receiver;
}
