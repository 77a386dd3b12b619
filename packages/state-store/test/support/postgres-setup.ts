// Vitest's global setup for the store's PostgreSQL run: one throwaway cluster for the run, and a template
// database already migrated, which each test's database is created from (a file copy, not a migration).
import type { TestProject } from "vitest/node";
// A relative import: the global setup runs in the main process, where the "@kxm/source" condition does not apply.
import { startPostgres, TEMPLATE_DATABASE } from "../../../../test-support/src/postgres.mjs";
import { openPostgresStore } from "../../src/postgres/open.js";

export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startPostgres();
  try {
    const { default: postgres } = await import("postgres");
    const admin = postgres(cluster.url("postgres"), { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${TEMPLATE_DATABASE}`);
    await admin.end();
    const store = await openPostgresStore({ url: cluster.url(TEMPLATE_DATABASE) });
    await store.close();
  } catch (error) {
    cluster.stop();
    throw error;
  }
  project.provide("kxmPostgresUrl", cluster.url("postgres"));
  return () => cluster.stop();
}
