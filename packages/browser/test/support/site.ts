// A tiny local site for the signed-in checks: /login (signed out) and /app/home?token=... (signed in).
import { createServer } from "node:http";

export async function startSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    const html =
      path === "/app/home"
        ? '<title>Home</title><div id="account">Signed in as Ada</div>'
        : "<title>Login</title><form><input name=user><button>Sign in</button></form>";
    response.writeHead(200, { "content-type": "text/html" }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
