import { KxmError } from "@kxm/contract";

/** A position in the newest-first episode listing: the last item's time and id. */
export interface EpisodeCursor {
  at: string;
  id: string;
}

/** An opaque cursor: base64url of `[at, id]`. */
export function encodeCursor(cursor: EpisodeCursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.id]), "utf8").toString("base64url");
}

/** Reads a cursor made by {@link encodeCursor}; anything else is `invalid_request`. */
export function decodeCursor(text: string): EpisodeCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    value = undefined;
  }
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    typeof value[0] !== "string" ||
    typeof value[1] !== "string" ||
    Number.isNaN(Date.parse(value[0])) ||
    value[0].length !== 24
  ) {
    throw new KxmError("invalid_request", "before: not a cursor returned by a previous page");
  }
  return { at: value[0], id: value[1] };
}
