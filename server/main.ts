// `npm start`: the embedded default (HTTP 127.0.0.1:8080, DNS 127.0.0.1:5353, data in ./data), or
// with DATABASE_URL one instance of a deployment on PostgreSQL.
import { DEFAULT_RATE_LIMIT } from "./auth/issue-key.ts";
import { scopeCatalogue } from "./auth/scopes.ts";
import { loadConfig } from "./config.ts";
import { seedDemo } from "./demo/seed-demo.ts";
import { StartupError } from "./startup-errors.ts";
import { startPlatform } from "./platform.ts";

/** A mistake in the settings: one line naming the setting, exit 1, no stack trace. */
function refuse(message: string): never {
  console.error(`platform: ${message}`);
  process.exit(1);
}

let config: ReturnType<typeof loadConfig>;
try {
  // Reading the configuration only parses and checks: whatever it throws is the user's setting.
  config = loadConfig();
} catch (error) {
  refuse((error as Error).message);
}
const platform = await startPlatform(config, {
  logger: true,
  docs: { build: true, onBuildError: (message) => console.error(`docs: the reference could not be built (${message}); /docs shows the operation index`) },
}).catch((error: unknown) => {
  if (error instanceof StartupError) refuse(error.message);
  throw error;
});
const base = config.publicUrl || platform.url;

// Not on PostgreSQL (decision P7): instances starting together would each find no project and
// race to create the demo, and a shared deployment gets its projects from the console.
if (config.demo && !config.databaseUrl) {
  const demo = await seedDemo(platform.services, scopeCatalogue(platform.openapi));
  if (demo) {
    const dnsPort = platform.dns?.udpPort ?? config.dns.port;
    console.log(`
First start: created a demo project with the zone ${demo.zone} and the mail domain ${demo.mailDomain}.
API key with every scope (shown only now, store it):

  ${demo.key}

It may make ${DEFAULT_RATE_LIMIT} requests a minute (then 429 with Retry-After); a key with another limit:
  npm run admin -- keys create --project ${demo.projectId} --scopes all --rate-limit 600

Try:
  curl -s -H "Authorization: Bearer ${demo.key}" -H "content-type: application/json" \\
    -d '{"name":"team","domain":"${demo.mailDomain}","password":"correct horse"}' ${base}/v1/mailboxes
  curl -s -H "Authorization: Bearer ${demo.key}" -H "content-type: application/json" \\
    -d '{"type":"A","name":"www","data":"192.0.2.10"}' ${base}/v1/dns/${demo.zone}/records
  dig @${config.dns.host} -p ${dnsPort} www.${demo.zone} A
`);
  }
}
console.log(`HTTP ${base}  (docs ${base}/docs, contract ${base}/openapi.json, webmail ${base}/webmail)`);
if (platform.dns) console.log(`DNS  ${config.dns.host}:${platform.dns.udpPort} (UDP and TCP)`);
if (platform.smtp) console.log(`SMTP ${platform.smtp.host}:${platform.smtp.port} (inbound mail for the mail domains)`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void platform.close().then(() => process.exit(0));
  });
}
