// Every URL KXM builds for a Steel deployment. Only cdpUrl() puts the key in one.

/** The deployment's identity in the tracker: its origin and path prefix, without a trailing slash. */
export function deploymentOf(apiUrl: string): string {
  const url = new URL(apiUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** The REST endpoint `path` (such as `/v1/sessions`) under the deployment's base URL, path prefix kept. */
export function endpointUrl(apiUrl: string, path: string): URL {
  return new URL(`${deploymentOf(apiUrl)}${path}`);
}

/** `/v1/sessions/<id>` with the id encoded, so that no id reaches another path. */
export function sessionPath(id: string, suffix = ""): string {
  return `/v1/sessions/${encodeURIComponent(id)}${suffix}`;
}

/**
 * The CDP WebSocket URL of a session: `<ws|wss>://<host>/<prefix>/v1/devtools?sessionId=<id>&apiKey=<key>`. It
 * is a secret (the key rides in the query, as Steel's CDP endpoint reads it): never log it or put it in a message.
 */
export function cdpUrl(apiUrl: string, id: string, key: string): string {
  const url = endpointUrl(apiUrl, "/v1/devtools");
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("sessionId", id);
  if (key !== "") url.searchParams.set("apiKey", key);
  return url.toString();
}

/**
 * The session viewer for a person: `<STEEL_UI_URL>?sessionId=<id>` when the UI URL is set, else the viewer
 * open-source Steel serves, `<STEEL_API_URL>/v1/sessions/debug?sessionId=<id>`. It never carries the key.
 */
export function viewerUrl(config: { apiUrl: string; uiUrl?: string | undefined }, id: string): string {
  const url =
    config.uiUrl === undefined ? endpointUrl(config.apiUrl, "/v1/sessions/debug") : new URL(config.uiUrl);
  url.searchParams.set("sessionId", id);
  return url.toString();
}
