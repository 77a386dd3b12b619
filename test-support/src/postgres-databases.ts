// Test databases on the run's throwaway PostgreSQL cluster (started by the "postgres" project's global setup,
// packages/state-store/test/support/postgres-setup.ts): each test gets a new database copied from a migrated
// template, dropped after it.
import postgres from "postgres";
import { afterEach, inject } from "vitest";
import { TEMPLATE_DATABASE } from "./postgres.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    /** The cluster's URL of its `postgres` database; test databases are made from `kxm_template`. */
    kxmPostgresUrl: string;
  }
}

const made: string[] = [];
let admin: postgres.Sql | undefined;
let databases = 0;

afterEach(async () => {
  for (const name of made.splice(0)) await admin?.unsafe(`drop database if exists ${name} with (force)`);
});

/** A new database of the run's cluster (migrated, holding nothing), dropped after the test: its URL. */
export async function tempPostgresDatabase(): Promise<string> {
  const base = inject("kxmPostgresUrl");
  admin ??= postgres(base, { max: 1, onnotice: () => {} });
  const name = `kxm_test_${process.pid}_${++databases}`;
  await admin.unsafe(`create database ${name} template ${TEMPLATE_DATABASE}`);
  made.push(name);
  return `${base.slice(0, base.lastIndexOf("/"))}/${name}`;
}
