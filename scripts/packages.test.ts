import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { beforeAll, describe, expect, test } from "vitest";
import { pnpmCommand, REPO, suiteFolder } from "./support.js";

// Every @kxm package is publishable: a LICENSE (the root's) in its folder and its `files`, the root's license and
// repository with the package's own `directory`, and `publint` (strict, every suggestion) clean on the tarball that
// `pnpm pack` makes from the built package. Then the arbiter guide's way to get the packages before they are on the
// registry: install the packed tarballs with npm into an empty folder and run the guide's first example there.

const repo = REPO;
const work = suiteFolder("kxm-packages-", 60_000);
const packs = join(work, "packs");

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  files?: string[];
}

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Manifest;
const root = readJson(join(repo, "package.json"));

/** The workspace's publishable packages (packages/* and apps/*), as folder paths relative to the root. */
const folders = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(repo, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${group}/${entry.name}`)
    .filter((folder) => readJson(join(repo, folder, "package.json")).private !== true),
);

/** Runs pnpm (see `pnpmCommand`) and returns its standard output. */
function pnpm(args: readonly string[], cwd: string): string {
  const [command, rest] = pnpmCommand(args);
  return execFileSync(command, rest, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

const tarball = (manifest: Manifest) =>
  join(packs, `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`);

beforeAll(() => {
  mkdirSync(packs);
  const filters = folders.flatMap((folder) => ["--filter", `./${folder}`]);
  pnpm(["-r", ...filters, "pack", "--pack-destination", packs], repo);
}, 180_000);

describe("every package is publishable", () => {
  test("the workspace has eleven packages to publish", () => {
    expect(folders.length).toBe(11);
  });

  test.for(folders)("%s: LICENSE, license, repository and files", (folder) => {
    const manifest = readJson(join(repo, folder, "package.json"));
    expect(readFileSync(join(repo, folder, "LICENSE"), "utf8")).toBe(
      readFileSync(join(repo, "LICENSE"), "utf8"),
    );
    expect(manifest.license).toBe(root.license);
    expect(root.license).toBe("MIT");
    expect(manifest.repository).toEqual({ type: "git", url: root.repository?.url, directory: folder });
    expect(manifest.files).toContain("LICENSE");
  });

  test.for(folders)("%s: its tarball holds the LICENSE and publint finds nothing", async (folder) => {
    const manifest = readJson(join(repo, folder, "package.json"));
    const bytes = readFileSync(tarball(manifest));
    const listing = execFileSync("tar", ["-tzf", tarball(manifest)], { encoding: "utf8" }).split("\n");
    expect(listing).toContain("package/LICENSE");
    const { messages, pkg } = await publint({
      pack: {
        tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
      },
      level: "suggestion",
      strict: true,
    });
    expect(messages.map((message) => `${message.code}: ${formatMessage(message, pkg) ?? ""}`)).toEqual([]);
  });

  test("pnpm pack rewrites workspace: and catalog: ranges to versions", () => {
    const arbiter = readJson(join(repo, "packages", "arbiter", "package.json"));
    const packed = execFileSync("tar", ["-xzOf", tarball(arbiter), "package/package.json"], {
      encoding: "utf8",
    });
    expect(packed).not.toMatch(/"(?:workspace|catalog):/);
  });
});

describe("the arbiter guide, from packed tarballs", () => {
  test("npm installs the three tarballs into an empty folder and the guide's first example runs there", () => {
    const project = join(work, "my-agent");
    mkdirSync(project);
    const tarballs = ["contract", "provenance", "arbiter"].map((name) =>
      tarball(readJson(join(repo, "packages", name, "package.json"))),
    );
    const install = spawnSync(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", ...tarballs],
      {
        cwd: project,
        encoding: "utf8",
        timeout: 240_000,
      },
    );
    expect(install.status, install.stderr).toBe(0);
    copyFileSync(join(repo, "docs", "examples", "guide-packet.mjs"), join(project, "guide-packet.mjs"));
    const outside = spawnSync(process.execPath, ["guide-packet.mjs"], { cwd: project, encoding: "utf8" });
    expect(outside.status, outside.stderr).toBe(0);
    const inside = spawnSync(process.execPath, ["docs/examples/guide-packet.mjs"], {
      cwd: repo,
      encoding: "utf8",
    });
    expect(outside.stdout).toBe(inside.stdout);
    expect(outside.stdout).toContain('{"state":["Releases are cut from the main branch"]');
  }, 300_000);
});
