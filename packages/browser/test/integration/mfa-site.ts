// A local site whose sign-in asks for a second factor, for the takeover tests. It is a real HTTP server on
// loopback: a password form, then a one-time code form, then an account page that only a signed-in cookie opens.
// The code reaches the "operator" out of band (`site.code()`), as a text message would, never through the page.
import { randomBytes, randomInt } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface MfaSite {
  url: string;
  /** The code the second factor expects now; a new one after each password step. */
  code(): string;
  /** The signed-in cookies handed out so far. */
  signIns(): number;
  close(): Promise<void>;
}

export const USER = "alice";
export const PASSWORD = "correct horse battery staple";

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

export async function startMfaSite(): Promise<MfaSite> {
  const pending = new Set<string>();
  const signedIn = new Set<string>();
  let code = "";

  const cookies = (req: IncomingMessage): Map<string, string> =>
    new Map(
      (req.headers.cookie ?? "")
        .split(";")
        .map((part) => part.trim().split("="))
        .filter((pair): pair is [string, string] => pair.length === 2)
        .map(([name, value]) => [name, value]),
    );
  const form = async (req: IncomingMessage): Promise<URLSearchParams> => {
    let body = "";
    for await (const chunk of req) body += chunk;
    return new URLSearchParams(body);
  };
  const redirect = (res: ServerResponse, to: string, cookie?: string) => {
    res.writeHead(303, { location: to, ...(cookie === undefined ? {} : { "set-cookie": cookie }) });
    res.end();
  };
  const html = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
    res.end(text);
  };

  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const jar = cookies(req);
    if (req.method === "GET" && path === "/login") {
      return html(
        res,
        200,
        page(
          "Sign in",
          `<form method="post" action="/login"><label>User <input name="user" id="user"></label>` +
            `<label>Password <input name="password" id="password" type="password"></label>` +
            `<button id="sign-in">Sign in</button></form>`,
        ),
      );
    }
    if (req.method === "POST" && path === "/login") {
      const fields = await form(req);
      if (fields.get("user") !== USER || fields.get("password") !== PASSWORD) {
        return html(res, 401, page("Sign in", `<p id="error">Wrong user or password</p>`));
      }
      const token = randomBytes(16).toString("hex");
      pending.add(token);
      code = String(randomInt(100_000, 1_000_000));
      return redirect(res, "/mfa", `pending=${token}; Path=/; HttpOnly; SameSite=Strict`);
    }
    if (req.method === "GET" && path === "/mfa") {
      if (!pending.has(jar.get("pending") ?? "")) return redirect(res, "/login");
      return html(
        res,
        200,
        page(
          "Second factor",
          `<form method="post" action="/mfa"><label>Code from your phone <input name="code" id="code"></label>` +
            `<button id="verify">Verify</button></form>`,
        ),
      );
    }
    if (req.method === "POST" && path === "/mfa") {
      const token = jar.get("pending") ?? "";
      const fields = await form(req);
      if (!pending.has(token) || fields.get("code") !== code) {
        return html(res, 401, page("Second factor", `<p id="error">Wrong code</p>`));
      }
      pending.delete(token);
      const session = randomBytes(16).toString("hex");
      signedIn.add(session);
      return redirect(res, "/account", `session=${session}; Path=/; HttpOnly; SameSite=Strict`);
    }
    if (req.method === "GET" && path === "/account") {
      if (!signedIn.has(jar.get("session") ?? "")) return redirect(res, "/login");
      return html(res, 200, page("Account", `<h1 id="account">Signed in as ${USER}</h1>`));
    }
    return redirect(res, "/account");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    code: () => code,
    signIns: () => signedIn.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
