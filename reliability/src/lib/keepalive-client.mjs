// @ts-check
// One keep-alive client of the hub: a single persistent connection (an http.Agent with one socket), as one agent
// process with a long-lived HTTP client holds. Answers have the shape of http.mjs's `call`.
import { Agent, request } from "node:http";

/**
 * @param {string} base the hub's URL
 * @returns {{ call: (method: string, path: string, options?: { token?: string, body?: unknown }) =>
 *   Promise<{ status: number, text: string, json: any }>, close: () => void }}
 */
export function keepAliveClient(base) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(base);
  return {
    call(method, path, options = {}) {
      const body = options.body === undefined ? undefined : JSON.stringify(options.body);
      return new Promise((resolve, reject) => {
        const outgoing = request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            method,
            path,
            headers: {
              ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
              ...(body === undefined
                ? {}
                : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }),
            },
          },
          (response) => {
            let text = "";
            response.setEncoding("utf8");
            response.on("data", (chunk) => {
              text += chunk;
            });
            response.on("end", () => {
              let json;
              try {
                json = text === "" ? undefined : JSON.parse(text);
              } catch {
                json = undefined;
              }
              resolve({ status: response.statusCode ?? 0, text, json });
            });
            response.on("error", reject);
          },
        );
        outgoing.on("error", reject);
        outgoing.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}
