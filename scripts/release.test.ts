// The release set-up of docs/contributing.md: the published packages are one changesets `fixed` group, every other
// workspace package is private, each published package has a CHANGELOG.md that starts at its current version, and
// `pnpm version-packages` (changeset version), run for real on a copy of the workspace's manifests, bumps the eleven
// packages together and writes their changelogs while leaving the private ones alone.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { pnpmCommand, REPO, suiteFolder } from "./support.js";

const repo = REPO;
const work = suiteFolder("kxm-release-");

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
}

/** Runs pnpm (see `pnpmCommand`) and returns its standard output. */
function pnpm(args: readonly string[], cwd: string): string {
  const [command, rest] = pnpmCommand(args);
  return execFileSync(command, rest, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, "utf8")) as T;
const config = readJson<{ fixed: string[][]; access: string; baseBranch: string; privatePackages: object }>(
  join(repo, ".changeset", "config.json"),
);

/** Every workspace package but the root, as pnpm lists it: folder relative to the root, and its manifest. */
let workspace: { folder: string; manifest: Manifest }[] = [];
const published = () => workspace.filter(({ manifest }) => manifest.private !== true);

beforeAll(() => {
  const listed = JSON.parse(pnpm(["ls", "-r", "--depth", "-1", "--json"], repo)) as { path: string }[];
  workspace = listed
    .map(({ path }) => relative(repo, realpathSync(path)))
    .filter((folder) => folder !== "")
    .sort()
    .map((folder) => ({ folder, manifest: readJson<Manifest>(join(repo, folder, "package.json")) }));
});

describe("what is published", () => {
  test("the published packages are the eleven under packages/ and apps/, and they are the one fixed group", () => {
    for (const { folder } of published()) expect(folder).toMatch(/^(packages|apps)\//);
    expect(published()).toHaveLength(11);
    expect(config.fixed).toHaveLength(1);
    expect([...config.fixed[0]!].sort()).toEqual(
      published()
        .map(({ manifest }) => manifest.name)
        .sort(),
    );
  });

  test("every workspace package outside the fixed group is private", () => {
    const others = workspace.filter(({ manifest }) => !config.fixed[0]!.includes(manifest.name));
    expect(others.map(({ folder }) => folder)).toEqual(
      expect.arrayContaining(["bench", "docs/examples", "reliability"]),
    );
    for (const { folder, manifest } of others) expect(manifest.private, folder).toBe(true);
  });

  test("the fixed group shares one version, and publishes publicly from main", () => {
    expect(new Set(published().map(({ manifest }) => manifest.version)).size).toBe(1);
    expect(config.access).toBe("public");
    expect(config.baseBranch).toBe("main");
    expect(config.privatePackages).toEqual({ version: false, tag: false });
  });

  test("every published package has a CHANGELOG.md that starts with its current version", () => {
    for (const { folder, manifest } of published()) {
      const changelog = readFileSync(join(repo, folder, "CHANGELOG.md"), "utf8");
      expect(changelog.startsWith(`# ${manifest.name}\n\n## ${manifest.version}\n\n`), folder).toBe(true);
    }
  });
});

describe("pnpm version-packages", () => {
  test("bumps the fixed group together and leaves the private packages alone", () => {
    for (const file of ["package.json", "pnpm-workspace.yaml", ".changeset/config.json"]) {
      mkdirSync(dirname(join(work, file)), { recursive: true });
      cpSync(join(repo, file), join(work, file));
    }
    for (const { folder, manifest } of workspace) {
      mkdirSync(join(work, folder), { recursive: true });
      cpSync(join(repo, folder, "package.json"), join(work, folder, "package.json"));
      if (manifest.private !== true)
        cpSync(join(repo, folder, "CHANGELOG.md"), join(work, folder, "CHANGELOG.md"));
    }
    symlinkSync(join(repo, "node_modules"), join(work, "node_modules"), "dir");
    writeFileSync(
      join(work, ".changeset", "wiki-lint-fix.md"),
      '---\n"@kxm/wiki": patch\n---\n\nThe wiki linter reports a missing page once.\n',
    );

    pnpm(["version-packages"], work);

    const [major, minor, patch] = published()[0]!.manifest.version.split(".").map(Number);
    const next = `${major}.${minor}.${patch! + 1}`;
    for (const { folder, manifest } of workspace) {
      const bumped = readJson<Manifest>(join(work, folder, "package.json"));
      if (manifest.private === true) {
        expect(bumped.version, folder).toBe(manifest.version);
        continue;
      }
      expect(bumped.version, folder).toBe(next);
      const changelog = readFileSync(join(work, folder, "CHANGELOG.md"), "utf8");
      expect(changelog.startsWith(`# ${manifest.name}\n\n## ${next}\n`), folder).toBe(true);
      expect(changelog, folder).toContain(`\n## ${manifest.version}\n`);
    }
    expect(readFileSync(join(work, "packages/wiki/CHANGELOG.md"), "utf8")).toContain(
      "The wiki linter reports a missing page once.",
    );
    expect(() => readFileSync(join(work, ".changeset", "wiki-lint-fix.md"))).toThrow();
  }, 60_000);
});
