// @ts-check
// Loopback ports for tests that start a server themselves. Plain JavaScript (typed by net.d.mts) so that
// postgres.mjs, which the bench runs under plain Node, can import it.
import { createServer } from "node:net";

/** A loopback port nothing listens on: taken from the OS, then released. @returns {Promise<number>} */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(undefined));
  });
  const address = server.address();
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  if (address === null || typeof address === "string") throw new Error("no loopback port");
  return address.port;
}
