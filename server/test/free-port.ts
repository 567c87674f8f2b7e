// A loopback port nobody listens on right now, for the servers a test must tell their port up
// front (Pebble, a second platform process). The server's own, so server/ imports nothing from
// conformance/ (issue 37); conformance/scripts/free-port.ts is the suite's.
import net from "node:net";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
