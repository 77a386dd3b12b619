import Database from "better-sqlite3";
import postgres from "postgres";

/**
 * Runs one SQL statement straight on a test database, past the store: `location` is what `tempStore()` answered
 * as `file` (a SQLite file, or a PostgreSQL URL). Placeholders are `?` on both engines. Answers the rows as the
 * driver gives them (PostgreSQL's bigints as strings, booleans as booleans; SQLite's as numbers); a statement
 * without rows answers [].
 */
export async function rawQuery(
  location: string,
  text: string,
  params: readonly unknown[] = [],
): Promise<Record<string, unknown>[]> {
  if (location.startsWith("postgres://")) {
    const client = postgres(location, { max: 1, onnotice: () => {} });
    try {
      let n = 0;
      const numbered = text.replace(/\?/g, () => `$${++n}`);
      const rows = await client.unsafe(numbered, params as postgres.ParameterOrJSON<never>[]);
      return [...rows];
    } finally {
      await client.end();
    }
  }
  const raw = new Database(location);
  try {
    const statement = raw.prepare(text);
    if (!statement.reader) {
      statement.run(...params);
      return [];
    }
    return statement.all(...params) as Record<string, unknown>[];
  } finally {
    raw.close();
  }
}
