// `npm run messenger:emulator`: the Bot API emulator the tests use, for trying the messenger area
// offline. It starts on loopback with a manager bot (for bot-creation links) and one bot to
// connect, prints the settings to start the server with, and reads commands on standard input to
// play the messenger user: write to a bot, create a bot through the manager.
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { startBotApiEmulator } from "./bot-api-emulator.ts";

const { values } = parseArgs({ options: { port: { type: "string", default: "8081" }, "any-token": { type: "boolean" } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, got ${values.port}`);
  process.exit(2);
}
const emulator = await startBotApiEmulator({ port, acceptAnyToken: values["any-token"] });
const manager = emulator.addBot({ username: "platform_manager_bot", firstName: "Platform manager", canManageBots: true });
const demo = emulator.addBot({ username: "demo_shop_bot", firstName: "Demo shop" });
const user = { id: 1001, first_name: "Tester" };
const known = [manager, demo];

const help = `commands:
  say <bot username> <text>      the user ${user.first_name} (id ${user.id}) writes to the bot: an update to its webhook
  create <username> [name]       the user creates a bot through the manager's creation link (managed_bot update)
  bot <username>                 a new bot; prints its token, to connect with POST /v1/messenger/mybots
  bots                           the bots, their webhooks and pending updates
  sent <bot username>            what the bot sent (sendMessage)
  help, quit`;

console.log(`Bot API emulator on ${emulator.url}

Start the server against it (ALLOW_HTTP_LOOPBACK_WEBHOOKS lets forward URLs and the emulator's
calls to the server's hooks stay on this machine, over plain http):
  MESSENGER_API_ROOT=${emulator.url} MESSENGER_MANAGER_TOKEN=${manager.token} ALLOW_HTTP_LOOPBACK_WEBHOOKS=on npm start

A bot to connect (POST /v1/messenger/mybots {"token": ...}):
  @${demo.username}  ${demo.token}

${help}`);

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => void run(line.trim()).catch((error: Error) => console.log(`error: ${error.message}`)));
lines.on("close", () => void emulator.close().then(() => process.exit(0)));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void emulator.close().then(() => process.exit(0)));

async function run(line: string): Promise<void> {
  const [command, name, ...rest] = line.split(/\s+/);
  const bot = () => {
    const found = name ? emulator.bot(name.replace(/^@/, "")) : undefined;
    if (!found) throw new Error(`no bot ${name ?? ""} (see: bots)`);
    return found;
  };
  switch (command) {
    case "":
      return;
    case "say": {
      const target = bot();
      const text = rest.join(" ");
      const chat = { id: user.id, type: "private", first_name: user.first_name };
      const message = { message_id: Date.now() % 1_000_000, date: Math.floor(Date.now() / 1000), chat, from: { ...user, is_bot: false }, text };
      const { status, updateId } = await emulator.deliver(target.token, { message });
      console.log(target.webhook.url ? `update ${updateId} -> ${target.webhook.url}: ${status || "no answer"}` : `update ${updateId} pending: @${target.username} has no webhook yet`);
      return;
    }
    case "create": {
      if (!name) throw new Error("create <username> [name]");
      const { bot: created, status } = await emulator.createManagedBot(manager.token, { user, username: name, name: rest.join(" ") || name });
      known.push(created);
      console.log(`@${created.username} created (token ${created.token}); managed_bot update -> manager: ${status || "no webhook"}`);
      return;
    }
    case "bot": {
      if (!name) throw new Error("bot <username>");
      const created = emulator.addBot({ username: name.replace(/^@/, "") });
      known.push(created);
      console.log(`@${created.username}  ${created.token}`);
      return;
    }
    case "bots":
      for (const b of known) console.log(`@${b.username}  webhook ${b.webhook.url || "(none)"}  pending ${b.webhook.pending}`);
      return;
    case "sent":
      for (const m of emulator.sentMessages(bot().token)) console.log(`to ${m.chatId}: ${m.text}`);
      return;
    case "help":
      console.log(help);
      return;
    case "quit":
    case "exit":
      lines.close();
      return;
    default:
      console.log(`unknown command: ${command}\n${help}`);
  }
}
