import { KxmError } from "@kxm/contract";

/** The URL as it may be shown: no password, no query (which may carry one). */
export function redactDatabaseUrl(url: URL): string {
  const user = url.username === "" ? "" : `${decodeURIComponent(url.username)}@`;
  return `${url.protocol}//${user}${url.host}${url.pathname}`;
}

/** Parses a database URL, refusing anything but a postgres URL with a host and a database name. */
export function parseDatabaseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new KxmError(
      "database_url_invalid",
      "KXM_DATABASE_URL: not a URL (expected postgres://user@host/db)",
    );
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new KxmError(
      "database_url_invalid",
      `KXM_DATABASE_URL: the scheme must be postgres:// or postgresql://, not ${parsed.protocol}//`,
    );
  }
  if (parsed.hostname === "" || parsed.pathname.length <= 1) {
    throw new KxmError(
      "database_url_invalid",
      `KXM_DATABASE_URL: ${redactDatabaseUrl(parsed)} names no host or no database`,
    );
  }
  return parsed;
}
