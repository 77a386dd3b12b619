import Database from "better-sqlite3";
import postgres from "postgres";

/**
 * The rows `query` answers, read past the store on its own connection: a SQLite file opened read-only, or a
 * PostgreSQL URL (as `tempStore` gives `file`). For checks of what is really stored; write SQL both engines
 * answer alike (e.g. `cast(count(*) as integer)`, since PostgreSQL's count is a bigint the driver gives as text).
 */
export async function rawQuery(location: string, query: string): Promise<Record<string, unknown>[]> {
  if (location.startsWith("postgres://")) {
    const client = postgres(location, { max: 1, onnotice: () => {} });
    try {
      return [...(await client.unsafe(query))];
    } finally {
      await client.end();
    }
  }
  const raw = new Database(location, { readonly: true });
  try {
    return raw.prepare(query).all() as Record<string, unknown>[];
  } finally {
    raw.close();
  }
}
