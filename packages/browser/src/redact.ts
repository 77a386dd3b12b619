// The last guard against a key in a message: every message is built from origins and paths, and this removes
// the key (plain or URL-encoded) from whatever text still reaches a person.

/** What stands in for a removed secret. */
export const REDACTED = "[redacted]";

/** `text` with every occurrence of `secret`, plain or URL-encoded, replaced by {@link REDACTED}. */
export function redactSecret(text: string, secret: string | undefined): string {
  if (secret === undefined || secret === "") return text;
  let out = text;
  const forms = new Set([
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ k: secret }).toString().slice(2),
  ]);
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    if (form !== "") out = out.split(form).join(REDACTED);
  }
  return out;
}

/** A URL without its query, fragment and credentials: what a message may name. */
export function describeUrl(url: string | URL): string {
  try {
    const parsed = typeof url === "string" ? new URL(url) : url;
    if (parsed.origin === "null") return `${parsed.protocol}${parsed.pathname}`;
    return `${parsed.origin}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return "an unreadable URL";
  }
}
