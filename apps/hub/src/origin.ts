// Which browser origins may reach `/mcp`. The MCP Streamable HTTP transport requires a server to validate `Origin`
// so that a web page whose name was rebound to a loopback address (DNS rebinding) cannot drive a local server. A
// request without `Origin` is no browser's and is allowed; a loopback origin is a page on this machine; anything
// else must be listed in `KXM_MCP_ALLOWED_ORIGINS`.

/** An `http:` or `https:` origin as `URL.origin` writes it (lowercase host, default port dropped), or undefined. */
export function parseOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return undefined;
  if (url.pathname !== "/" && url.pathname !== "") return undefined;
  return url.origin;
}

function isLoopbackHost(hostname: string): boolean {
  if (hostname === "localhost" || hostname === "[::1]") return true;
  return /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/** True when a request with this `Origin` header (undefined when absent) may use `/mcp`. */
export function isAllowedOrigin(header: string | undefined, allowed: readonly string[]): boolean {
  if (header === undefined) return true;
  const origin = parseOrigin(header);
  if (origin === undefined) return false;
  if (isLoopbackHost(new URL(origin).hostname)) return true;
  return allowed.includes(origin);
}
