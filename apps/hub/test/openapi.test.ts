import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readHubEnv, type ServingHub, serveHub } from "../src/index.js";
import { ADMIN_TOKEN } from "./helpers.js";

// The live document of a real hub on a loopback port, checked by two independent tools: swagger-parser (the
// OpenAPI 3.1 schema, and that every $ref resolves) and redocly's recommended rules. Either failing is a bug in the
// document the hub generates from the contract's zod schemas.

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const REDOCLY = join(dirname(require.resolve("@redocly/cli/package.json")), "bin", "cli.js");

let dir: string;
let served: ServingHub;
let text: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kxm-openapi-"));
  served = await serveHub({
    env: readHubEnv({ KXM_AUTH_TOKEN: ADMIN_TOKEN, KXM_PORT: "0" }, dir),
    logger: false,
    handleSignals: false,
  });
  const response = await fetch(`${served.url}/openapi.json`);
  expect(response.status).toBe(200);
  text = await response.text();
});

afterAll(async () => {
  await served?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("GET /openapi.json of a running hub", () => {
  test("is a valid OpenAPI 3.1 document whose every $ref resolves (swagger-parser)", async () => {
    const document = JSON.parse(text);
    expect(document.openapi).toBe("3.1.0");
    // validate() dereferences in place: give it its own copy.
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeDefined();
    const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) expect(Object.keys(document.components.schemas), ref).toContain(ref);
  });

  test("passes redocly lint's recommended rules with no error and no warning", async () => {
    const file = join(dir, "openapi.json");
    await writeFile(file, text);
    // Offline: no telemetry and no update check, so the test needs no network.
    const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
    const result = await run(process.execPath, [REDOCLY, "lint", file, "--format=json"], {
      env,
      cwd: dir,
      timeout: 60_000,
    }).catch((error: { stdout?: string; stderr?: string }) => error);
    const report = JSON.parse(result.stdout ?? "{}") as {
      totals?: { errors: number; warnings: number };
      problems?: { ruleId: string; message: string }[];
    };
    expect(report.problems?.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
