// Loopback ports for tests that start a server themselves.
import { createServer } from "node:net";

/** A loopback port nothing listens on: taken from the OS, then released. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no loopback port");
  return address.port;
}
