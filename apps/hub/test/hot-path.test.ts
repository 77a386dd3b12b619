import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { memorySignature } from "../src/memory-signature.js";
import {
  ADMIN_TOKEN,
  call,
  createTestHub,
  GUIDE_PROPOSAL,
  memoryFact,
  projectWithAgent,
  type TestHub,
  writeFiles,
} from "./helpers.js";

// The packet route's hot path keeps two reads off most requests: the store's open contradictions (cached until
// the next item write) and the memory revision's hash (skipped while a stat signature of the folders holds).

const LATER = () => Date.now() + 60_000;

describe("memorySignature", () => {
  let root: string;
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test("is stable while nothing changes, and changes with any file under memory or promoted skills", async () => {
    root = await mkdtemp(join(tmpdir(), "kxm-signature-"));
    expect(memorySignature(root, LATER())).toBe(memorySignature(root, LATER()));
    const empty = memorySignature(root, LATER());
    await writeFiles(root, { ".kxm/memory/a.md": memoryFact("a", "First fact") });
    const one = memorySignature(root, LATER());
    expect(one).toBeDefined();
    expect(one).not.toBe(empty);
    expect(memorySignature(root, LATER())).toBe(one);

    await writeFile(join(root, ".kxm/memory/a.md"), memoryFact("a", "First fact, edited"));
    const edited = memorySignature(root, LATER());
    expect(edited).not.toBe(one);
    await writeFiles(root, { ".kxm/skills/promoted/s/SKILL.md": "---\nname: s\n---\n" });
    expect(memorySignature(root, LATER())).not.toBe(edited);
  });

  test("is undefined (hash to be sure) while a file is too recent for its timestamp to be trusted", async () => {
    root = await mkdtemp(join(tmpdir(), "kxm-signature-"));
    await writeFiles(root, { ".kxm/memory/a.md": memoryFact("a", "First fact") });
    expect(memorySignature(root)).toBeUndefined();
    expect(memorySignature(root, LATER())).toBeDefined();
  });
});

describe("the packet route's cached reads", () => {
  let hub: TestHub;
  afterEach(async () => {
    await hub.dispose();
  });

  test("competing proposals become a contradiction in the next packet, and leave it once resolved", async () => {
    hub = await createTestHub();
    const key = await projectWithAgent(hub.app, "demo");
    const request = { role: "implementer", task: "release branch" };
    const contradictionIds = async () => {
      const response = await call(hub.app, "POST", "/v1/projects/demo/context", key, request);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().packet.contradictions.map((item: { id: string }) => item.id);
    };
    const propose = async (summary: string) => {
      const response = await call(hub.app, "POST", "/v1/projects/demo/state/proposals", key, {
        ...GUIDE_PROPOSAL,
        summary,
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json().proposalId as string;
    };

    const first = await propose("Releases are cut from the main branch");
    expect(await contradictionIds()).toEqual([]);
    const second = await propose("Releases are cut from the release branch");
    expect([...(await contradictionIds())].sort()).toEqual([first, second].sort());
    expect(await contradictionIds()).toHaveLength(2);

    const promoted = await call(
      hub.app,
      "POST",
      `/v1/projects/demo/state/proposals/${second}/promote`,
      ADMIN_TOKEN,
      { evidenceRefs: ["pr:13"] },
    );
    expect(promoted.statusCode, promoted.body).toBe(200);
    const open = (await call(hub.app, "GET", "/v1/projects/demo/contradictions", key)).json();
    const expected = open.state.flatMap((contradiction: { itemIds: string[] }) => contradiction.itemIds);
    expect([...(await contradictionIds())].sort()).toEqual([...expected].sort());
    expect(await contradictionIds()).not.toContain(second);
  });
});
