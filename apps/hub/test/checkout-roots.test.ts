import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { LightMyRequestResponse } from "fastify";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  ADMIN_TOKEN,
  call,
  createTestHub,
  gitCheckout,
  memoryFact,
  projectWithAgent,
  type TestHub,
} from "./helpers.js";

let hub: TestHub;
beforeEach(async () => {
  hub = await createTestHub();
});
afterEach(async () => {
  await hub.dispose();
});

function expectRefused(answer: LightMyRequestResponse, root: string): void {
  expect(answer.statusCode, answer.body).toBe(400);
  expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(answer.json().code).toBe("invalid_request");
  expect(answer.body).not.toContain(root);
}

/** A packet, a recall and the wiki records of the project: each must be 200, whatever its checkout became. */
async function servedGaps(project: string): Promise<{ packet: string[]; audit: string[]; recall: string[] }> {
  const packet = await call(hub.app, "POST", `/v1/projects/${project}/context`, ADMIN_TOKEN, {
    role: "planner",
    task: "release",
  });
  expect(packet.statusCode, packet.body).toBe(200);
  const recall = await call(hub.app, "POST", `/v1/projects/${project}/recall`, ADMIN_TOKEN, {
    query: "release",
  });
  expect(recall.statusCode, recall.body).toBe(200);
  const wiki = await call(hub.app, "GET", `/v1/projects/${project}/wiki/records`, ADMIN_TOKEN);
  expect(wiki.statusCode, wiki.body).toBe(200);
  // The arbiter's own gaps ("no matching context records") come first; the checkout's are the memory ones.
  const memoryGaps = (gaps: string[]) => gaps.filter((gap) => gap.startsWith("memory_"));
  return {
    packet: memoryGaps(packet.json().packet.unresolvedGaps),
    audit: memoryGaps(packet.json().audit.unresolvedGaps),
    recall: memoryGaps(recall.json().unresolvedGaps),
  };
}

describe("registering a checkout root", () => {
  test("a root that is a file, has a component over 255 bytes, or is over PATH_MAX is refused on create and update", async () => {
    const file = join(hub.dir, "a-file");
    await writeFile(file, "not a folder\n");
    await projectWithAgent(hub.app, "demo");
    const roots = [
      file,
      join(hub.dir, "x".repeat(256)),
      `${hub.dir}/${"y".repeat(255)}/${"z".repeat(255)}`,
      `/${`${"a".repeat(200)}/`.repeat(20)}`,
      `/${"b".repeat(4095)}`,
      join(file, "below-a-file"),
    ];
    for (const root of roots) {
      expectRefused(
        await call(hub.app, "POST", "/v1/projects", ADMIN_TOKEN, { id: "refused", checkoutRoot: root }),
        root,
      );
      expectRefused(
        await call(hub.app, "PATCH", "/v1/projects/demo", ADMIN_TOKEN, { checkoutRoot: root }),
        root,
      );
    }
    const projects = await call(hub.app, "GET", "/v1/projects", ADMIN_TOKEN);
    expect(projects.json().projects).toEqual([expect.objectContaining({ id: "demo", checkoutRoot: null })]);
  });

  test("a folder that is not a git repository is accepted, and its packets are served", async () => {
    const root = join(hub.dir, "plain");
    await mkdir(root);
    await projectWithAgent(hub.app, "plain", "agent-planner", root);
    expect(await servedGaps("plain")).toEqual({ packet: [], audit: [], recall: [] });
  });
});

describe("a registered checkout that changes under the hub", () => {
  async function registered(): Promise<string> {
    const root = await gitCheckout(hub.dir, "repo", {
      ".kxm/memory/release.md": memoryFact("release", "Releases are cut from main"),
    });
    await projectWithAgent(hub.app, "p", "agent-planner", root);
    const before = await call(hub.app, "POST", "/v1/projects/p/context", ADMIN_TOKEN, {
      role: "planner",
      task: "release",
    });
    expect(before.json().audit.selectedIds).toEqual(["mem_release"]);
    return root;
  }

  const unavailable = (reason: string) => {
    const gaps = [`memory_unavailable:${reason}`];
    return { packet: gaps, audit: gaps, recall: gaps };
  };

  test("a checkout that disappears is served without memory, with a checkout_missing gap", async () => {
    const root = await registered();
    await rm(root, { recursive: true });
    expect(await servedGaps("p")).toEqual(unavailable("checkout_missing"));
  });

  test("a checkout replaced by a file is served without memory, with a checkout_not_a_folder gap", async () => {
    const root = await registered();
    await rm(root, { recursive: true });
    await writeFile(root, "now a file\n");
    expect(await servedGaps("p")).toEqual(unavailable("checkout_not_a_folder"));
  });

  test("a checkout replaced by a symlink loop is served without memory, with a checkout_unreadable gap", async () => {
    const root = await registered();
    await rm(root, { recursive: true });
    await symlink(root, root);
    expect(await servedGaps("p")).toEqual(unavailable("checkout_unreadable"));
  });

  test("a checkout that comes back is served its memory again", async () => {
    const root = await registered();
    await rm(root, { recursive: true });
    expect((await servedGaps("p")).recall).toEqual(["memory_unavailable:checkout_missing"]);
    await gitCheckout(hub.dir, "repo", {
      ".kxm/memory/release.md": memoryFact("release", "Releases are cut from main"),
    });
    expect(await servedGaps("p")).toEqual({ packet: [], audit: [], recall: [] });
  });

  test("an over-long root stored by an older hub is served with a checkout_unreadable gap", async () => {
    // The store takes any absolute path: a database written before the API checked roots may hold one.
    const root = join(hub.dir, "n".repeat(300));
    await hub.store.createProject({ id: "old", checkoutRoot: root }, hub.clock.now());
    expect(await servedGaps("old")).toEqual(unavailable("checkout_unreadable"));
  });

  test("a .kxm replaced by a file: HEAD's memory is named withheld, with a memory_kxm_not_a_folder gap", async () => {
    const root = await registered();
    await rm(join(root, ".kxm"), { recursive: true });
    await writeFile(join(root, ".kxm"), "a file\n");
    const gaps = await servedGaps("p");
    expect(gaps.recall).toEqual([
      "memory_kxm_not_a_folder",
      "memory_withheld:deleted:.kxm/memory/release.md",
    ]);
    expect(gaps.packet).toEqual(gaps.audit);
  });

  test("a .kxm replaced by a dangling symlink is served, with a memory_kxm_not_a_folder gap", async () => {
    const root = await registered();
    await rm(join(root, ".kxm"), { recursive: true });
    await symlink(join(hub.dir, "nowhere"), join(root, ".kxm"));
    const gaps = await servedGaps("p");
    expect(gaps.recall[0]).toBe("memory_kxm_not_a_folder");
  });

  test("a .kxm that becomes a file in a checkout without memory is noticed too", async () => {
    const root = join(hub.dir, "bare");
    await mkdir(join(root, ".kxm"), { recursive: true });
    await projectWithAgent(hub.app, "bare", "agent-planner", root);
    expect((await servedGaps("bare")).recall).toEqual([]);
    await rm(join(root, ".kxm"), { recursive: true });
    await writeFile(join(root, ".kxm"), "a file\n");
    expect((await servedGaps("bare")).recall).toEqual(["memory_kxm_not_a_folder"]);
  });
});
