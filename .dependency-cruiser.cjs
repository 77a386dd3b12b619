// The layer rules of the architecture ("dependencies flow one way"), checked by `pnpm run layers` and tested by
// scripts/layers.test.ts against small workspaces that break each rule.
//
// Scope: the script cruises the whole repository (`.`), less node_modules, dist, .turbo, .git and coverage: every
// workspace package (packages/*, apps/*, docs/examples, bench) and the root scripts. Naming `apps` on the command
// line would fail while apps/ does not exist yet (git keeps no empty folder).
//
// TypeScript: dependency-cruiser parses `.ts` with the TypeScript compiler API (versions below 7 only) or with
// swc. TypeScript 7 has no JavaScript API, and without a usable parser dependency-cruiser silently skips every
// `.ts` file and reports "no violations". So the parser is swc (`@swc/core`, a root devDependency), and this file
// refuses to run when dependency-cruiser cannot load it. swc does not mark `import type`, so type-only imports
// count as ordinary edges, in cycles too.
//
// Packages: `@kxm/*` resolve through the node_modules symlinks to the package folder, then through its `exports`
// map with the `@kxm/source` condition, so `import ... from "@kxm/contract"` is an edge to
// packages/contract/src/index.ts and a cycle across packages is visible. Relative `./x.js` imports resolve to
// `./x.ts` through dependency-cruiser's built-in .js-to-.ts retry.
const { readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

const PURE_PACKAGES = ["contract", "provenance", "arbiter", "wiki"];
const APPS = ["hub", "cli", "runtime-dispatch"];

/** Fails the run, instead of passing on zero modules, when dependency-cruiser has no TypeScript parser. */
function assertSwcAvailable() {
  // dependency-cruiser loads @swc/core from its own install folder; the bin script is process.argv[1].
  const from = [process.argv[1], __dirname].filter(Boolean);
  let version = "";
  try {
    version = JSON.parse(
      readFileSync(require.resolve("@swc/core/package.json", { paths: from }), "utf8"),
    ).version;
  } catch {
    // Reported below.
  }
  if (!version.startsWith("1.")) {
    throw new Error(
      "The layer check needs @swc/core 1.x to parse TypeScript (found: " +
        (version || "none") +
        "); run pnpm install. Without it dependency-cruiser would skip every .ts file and pass.",
    );
  }
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The files a workspace package may be entered through: every file its `exports` map names, except targets of
 * subpaths that themselves expose `./src`. A bare `@kxm/x` import resolves to one of these.
 */
function declaredEntries() {
  const entries = [];
  for (const layer of ["packages", "apps"]) {
    let names = [];
    try {
      names = readdirSync(join(__dirname, layer));
    } catch {
      continue;
    }
    for (const name of names) {
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(join(__dirname, layer, name, "package.json"), "utf8"));
      } catch {
        continue;
      }
      const exportsMap =
        typeof manifest.exports === "object" && manifest.exports !== null ? manifest.exports : {};
      const isSubpathMap = Object.keys(exportsMap).some((key) => key.startsWith("."));
      const subpaths = isSubpathMap ? Object.entries(exportsMap) : [[".", exportsMap]];
      for (const [subpath, target] of subpaths) {
        if (/^\.\/src(\/|$)/.test(subpath)) continue;
        for (const file of targetFiles(target)) {
          if (file.includes("*")) continue;
          entries.push(`^${escapeRegExp(`${layer}/${name}/${file.replace(/^\.\//, "")}`)}$`);
        }
      }
    }
  }
  return entries;
}

function targetFiles(target) {
  if (typeof target === "string") return [target];
  if (Array.isArray(target)) return target.flatMap(targetFiles);
  if (typeof target === "object" && target !== null) return Object.values(target).flatMap(targetFiles);
  return [];
}

assertSwcAvailable();

/**
 * A file's own package folder as $1: `packages/<name>/`, `apps/<name>/`, or "" for files elsewhere (scripts,
 * docs/examples, bench), so `^$1src/` is the file's own src and only packages' and apps' src can be "another's".
 */
const OWN_PACKAGE = "^((?:packages|apps)/[^/]+/|)";
const ANY_PACKAGE_SRC = "^(packages|apps)/[^/]+/src/";
// The reporters show one comment per rule name, so the three no-src-import clauses share this one.
const NO_SRC_IMPORT =
  "Import another package by its name, through its exports map: never '@kxm/x/src/...', never a relative " +
  "path into another package's src, never a src file its exports map does not name.";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "pure-package-io",
      comment:
        "contract, provenance, arbiter and wiki are pure: their src touches no file, process, socket, database or " +
        "server. Inputs come in as arguments. (Their tests may read fixtures and docs.)",
      severity: "error",
      from: { path: `^packages/(${PURE_PACKAGES.join("|")})/src/` },
      to: {
        path: [
          "^(node:)?(fs|child_process|net|http|https|http2|tls|dgram)(/|$)",
          "(^|/)(better-sqlite3|fastify)(/|$)",
          "(^|/)@fastify/",
        ],
      },
    },
    {
      name: "package-imports-app",
      comment: "No package imports an app: apps depend on packages, never the other way round.",
      severity: "error",
      from: { path: "^packages/" },
      to: { path: ["^apps/", `(^|/)@kxm/(${APPS.join("|")})(/|$)`] },
    },
    {
      name: "no-src-import",
      comment: NO_SRC_IMPORT,
      severity: "error",
      from: {},
      // Unresolved, so `path` is the specifier: not exported. (An exported one resolves; see the third clause.)
      to: { couldNotResolve: true, path: "^(@[^/]+/[^/]+|[^@./][^/]*)/src(/|$)" },
    },
    {
      name: "no-src-import",
      comment: NO_SRC_IMPORT,
      severity: "error",
      from: { path: OWN_PACKAGE },
      to: { path: ANY_PACKAGE_SRC, pathNot: "^$1src/", dependencyTypes: ["local"] },
    },
    {
      name: "no-src-import",
      comment: NO_SRC_IMPORT,
      severity: "error",
      from: { path: OWN_PACKAGE },
      to: { path: ANY_PACKAGE_SRC, pathNot: ["^$1src/", ...declaredEntries()] },
    },
    {
      name: "no-circular",
      comment: "No import cycles, type-only imports included (swc does not tell them apart).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-unresolvable-relative",
      comment: "A relative import that does not resolve would be an edge the check cannot see.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, path: "^\\.\\.?/" },
    },
  ],
  options: {
    parser: "swc",
    // node_modules is not walked or followed, but edges into it stay visible to the rules (better-sqlite3 ...).
    doNotFollow: { path: "(^|/)node_modules/" },
    exclude: { path: "(^|/)(dist|\\.turbo|\\.git|coverage)(/|$)" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@kxm/source", "import", "require", "node", "default"],
    },
  },
};
