// The layer rules of the architecture ("dependencies flow one way"), checked by `pnpm run layers` and tested by
// scripts/layers.test.ts against small workspaces that break each rule:
//   pure-package-io          the pure packages' src imports no Node built-in, database or server;
//   contract-client-subpath  no pure src, the contract's root entry included, imports the hub client subpath;
//   package-imports-app      no package imports an app;
//   allowed-dependencies     each package's src imports what its row in ALLOWED names, nothing else;
//   src-dev-dependency, src-undeclared-dependency
//                            src imports only what its package.json lists under dependencies or peerDependencies;
//   no-src-import, no-circular, no-unresolvable-relative.
// What imports cannot show (a clock read, console, process.env outside env.ts) is Biome's: biome.json's overrides,
// tested by scripts/lint.test.ts.
//
// Scope: the script cruises the whole repository (`.`), less node_modules, our own dist, .turbo, .git and
// coverage: every workspace package (packages/*, apps/*, docs/examples, bench, reliability) and the root scripts.
// Naming `apps` on the command line would fail while apps/ does not exist yet (git keeps no empty folder).
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
const { existsSync, readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

const PURE_PACKAGES = ["contract", "provenance", "arbiter", "wiki"];
const APPS = ["hub", "cli", "runtime-dispatch"];

// What each workspace package's `src` may import: one row per workspace package with a `src` folder (the check
// refuses to run when one has no row). docs/ARCHITECTURE.md ("Layout", "Dependencies flow one way") is the source:
//   workspace  the @kxm/* packages it may import (a package never imports an app);
//   npm        the npm packages it may import, by name, or DEPENDENCIES: those its package.json `dependencies`
//              (and `peerDependencies`) list;
//   node       the Node built-ins it may import (without `node:`), or ANY_BUILTIN. The pure packages import none:
//              `pure-package-io` reports every built-in there, so their rows say [] and this table adds nothing.
// Separately, whatever a package's src imports must be in its package.json `dependencies` or `peerDependencies`
// (`src-dev-dependency`, `src-undeclared-dependency`): a devDependency is missing from the published package.
const DEPENDENCIES = "dependencies";
const ANY_BUILTIN = "any";
const ALLOWED = {
  "packages/contract": { workspace: [], npm: ["zod"], node: [] },
  "packages/provenance": {
    workspace: ["@kxm/contract"],
    npm: ["@noble/hashes", "@secretlint/secretlint-rule-preset-recommend"],
    node: [],
  },
  "packages/arbiter": { workspace: ["@kxm/contract"], npm: ["porter2"], node: [] },
  "packages/wiki": { workspace: ["@kxm/contract"], npm: [], node: [] },
  // Agents' tools: the hub only through the contract's client, which the MCP server is given.
  "packages/mcp": { workspace: ["@kxm/contract"], npm: ["@modelcontextprotocol/sdk", "zod"], node: [] },
  "packages/memory-git": {
    workspace: ["@kxm/contract", "@kxm/provenance"],
    npm: DEPENDENCIES,
    node: ["child_process", "crypto", "fs", "os", "path", "util"],
  },
  // The Steel client, the takeover rules and the tracker: pure rules beside I/O at the edge (fetch, SQLite, CDP).
  "packages/browser": {
    workspace: ["@kxm/contract"],
    npm: DEPENDENCIES,
    node: ["child_process", "crypto", "fs", "http", "net", "os", "path", "stream", "timers/promises"],
  },
  "packages/state-store": {
    workspace: ["@kxm/contract", "@kxm/provenance"],
    npm: DEPENDENCIES,
    node: ["crypto", "fs", "path", "url"],
  },
  "apps/hub": {
    workspace: [
      "@kxm/arbiter",
      "@kxm/contract",
      "@kxm/mcp",
      "@kxm/memory-git",
      "@kxm/provenance",
      "@kxm/state-store",
    ],
    npm: DEPENDENCIES,
    node: ANY_BUILTIN,
  },
  "apps/cli": {
    workspace: [
      "@kxm/browser",
      "@kxm/contract",
      "@kxm/hub",
      "@kxm/mcp",
      "@kxm/memory-git",
      "@kxm/provenance",
      "@kxm/runtime-dispatch",
      "@kxm/state-store",
      "@kxm/wiki",
    ],
    npm: DEPENDENCIES,
    node: ANY_BUILTIN,
  },
  "apps/runtime-dispatch": {
    workspace: ["@kxm/arbiter", "@kxm/contract", "@kxm/memory-git", "@kxm/provenance"],
    npm: DEPENDENCIES,
    node: ANY_BUILTIN,
  },
  bench: {
    workspace: [
      "@kxm/arbiter",
      "@kxm/browser",
      "@kxm/contract",
      "@kxm/hub",
      "@kxm/provenance",
      "@kxm/state-store",
      "@kxm/steel-test-server",
      // Only its plain-JavaScript PostgreSQL cluster (`@kxm/test-support/postgres`), the one the tests start.
      "@kxm/test-support",
    ],
    npm: DEPENDENCIES,
    node: ANY_BUILTIN,
  },
  reliability: {
    workspace: ["@kxm/contract", "@kxm/hub", "@kxm/provenance", "@kxm/state-store"],
    npm: DEPENDENCIES,
    node: ANY_BUILTIN,
  },
  // A stand-in for Steel's REST API and CDP endpoint (real Chromium per session), for tests and the bench only.
  "steel-test-server": { workspace: [], npm: DEPENDENCIES, node: ANY_BUILTIN },
  // Tests' shared fixture writers. Only the bench's row names @kxm/test-support, so no package's src may import it.
  "test-support": {
    workspace: ["@kxm/contract"],
    npm: ["postgres", "vitest"],
    node: ["child_process", "fs", "net", "os", "path"],
  },
};

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

/**
 * Every workspace package: a folder one or two levels down (packages/*, apps/*, bench, docs/examples ...) holding a
 * package.json, with its name and manifest.
 */
function workspacePackages() {
  const found = [];
  const visit = (folder, depth) => {
    let entries = [];
    try {
      entries = readdirSync(join(__dirname, folder), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(join(__dirname, path, "package.json"), "utf8"));
      } catch {
        manifest = undefined;
      }
      if (manifest !== undefined && typeof manifest.name === "string") {
        found.push({ folder: path, name: manifest.name, manifest });
      } else if (depth < 2) {
        visit(path, depth + 1);
      }
    }
  };
  visit("", 1);
  return found;
}

const WORKSPACE = workspacePackages();
const FOLDER_OF = new Map(WORKSPACE.map(({ name, folder }) => [name, folder]));

/** Refuses to run when a workspace package with a src folder has no row in ALLOWED: it would escape the table. */
function assertEveryPackageHasARow() {
  const missing = WORKSPACE.filter(
    ({ folder }) => existsSync(join(__dirname, folder, "src")) && ALLOWED[folder] === undefined,
  ).map(({ folder }) => folder);
  if (missing.length > 0) {
    throw new Error(
      `The layer check has no row in ALLOWED (.dependency-cruiser.cjs) for ${missing.join(", ")}: add what its ` +
        "src may import, as docs/ARCHITECTURE.md describes it.",
    );
  }
  for (const pkg of PURE_PACKAGES) {
    const row = ALLOWED[`packages/${pkg}`];
    if (row === undefined || row.node.length !== 0 || row.npm === DEPENDENCIES) {
      throw new Error(`ALLOWED must list packages/${pkg}'s npm packages and no Node built-in: it is pure.`);
    }
  }
}

/** What a package's src may import by its manifest: `dependencies`, `peerDependencies`, `optionalDependencies`. */
function runtimeDependencies(manifest) {
  return new Set(
    ["dependencies", "peerDependencies", "optionalDependencies"].flatMap((field) =>
      Object.keys(manifest?.[field] ?? {}),
    ),
  );
}

/** Any workspace package as an edge's target: resolved into its folder, or, unresolved, `@kxm/...` as written. */
const ANY_WORKSPACE_PACKAGE = [
  "^@kxm/",
  "^(packages|apps)/[^/]+/",
  ...WORKSPACE.map(({ folder }) => `^${escapeRegExp(folder)}/`),
];

/** Workspace packages by name as edges' targets: resolved into their folders, or unresolved, as written. */
function workspaceTargets(names) {
  return [...names].flatMap((name) => {
    const folder = FOLDER_OF.get(name);
    return [`^${escapeRegExp(name)}(/|$)`, ...(folder === undefined ? [] : [`^${escapeRegExp(folder)}/`])];
  });
}

/** npm packages by name as edges' targets: resolved (into a node_modules folder), or unresolved, as written. */
function npmTargets(names) {
  return names.map((name) => `(^|/node_modules/|^node_modules/)${escapeRegExp(name)}(/|$)`);
}

const NPM_TYPES = ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-bundled", "npm-no-pkg", "npm-unknown"];
/** An unresolved bare specifier other than a workspace package's: an npm package that is not installed. */
const UNRESOLVED_NPM = "^(@[^/]+/[^/]+|[^@./][^/]*)(/|$)";
/** What pure-package-io reports besides Node built-ins (so allowed-dependencies does not report it twice). */
const PURE_IO_PACKAGES = ["(^|/)(better-sqlite3|fastify)(/|$)", "(^|/)@fastify/"];
/** What package-imports-app reports (so allowed-dependencies does not report it twice). */
const APP_TARGETS = ["^apps/", `(^|/)@kxm/(${APPS.join("|")})(/|$)`];
const PURE_SRC = `^packages/(${PURE_PACKAGES.join("|")})/src/`;
const CLIENT = "^packages/contract/src/client\\.ts$";

const ALLOWED_COMMENT =
  "A package's src imports only what its row in ALLOWED (.dependency-cruiser.cjs) names: the @kxm packages, npm " +
  "packages and Node built-ins docs/ARCHITECTURE.md gives it. Change the architecture on purpose, in the doc and " +
  "the table, not by an import.";
const DEV_COMMENT =
  "src ships: it may import only what its package.json lists under dependencies (or peerDependencies). A " +
  "devDependency is not installed with the published package. Tests may import devDependencies.";
const UNDECLARED_COMMENT =
  "src imports a package its package.json does not list at all: it resolves, if at all, only through the root's " +
  "or another package's node_modules, never once published. Add it to dependencies.";
// The reporters show one comment per rule name, so the two pure-package-io clauses share this one.
const PURE_IO_COMMENT =
  "contract, provenance, arbiter and wiki are pure: their src imports no Node built-in (no file, process, socket, " +
  "clock, random source, ...), no database and no server. Inputs come in as arguments. (Their tests may read " +
  "fixtures and docs.)";

/** The table's rules, the manifests' rules (src-dev-dependency, src-undeclared-dependency), per package. */
function tableRules() {
  const rules = [];
  for (const [folder, row] of Object.entries(ALLOWED)) {
    const from = { path: `^${escapeRegExp(folder)}/src/` };
    const pkg = WORKSPACE.find((candidate) => candidate.folder === folder);
    // A package may import itself by name (resolved into its folder, or unresolved).
    const own = [`^${escapeRegExp(folder)}/`, ...(pkg === undefined ? [] : workspaceTargets([pkg.name]))];
    const isPure = PURE_PACKAGES.some((name) => folder === `packages/${name}`);
    const isPackage = folder.startsWith("packages/");
    // Relative paths into another package are no-src-import's; only imports by name (or unresolved) count here.
    rules.push({
      name: "allowed-dependencies",
      comment: ALLOWED_COMMENT,
      severity: "error",
      from,
      to: {
        path: ANY_WORKSPACE_PACKAGE,
        pathNot: [...own, ...workspaceTargets(row.workspace), ...(isPackage ? APP_TARGETS : [])],
        dependencyTypesNot: ["local"],
      },
    });
    if (row.npm !== DEPENDENCIES) {
      const allowed = [...npmTargets(row.npm), ...(isPure ? PURE_IO_PACKAGES : [])];
      rules.push(
        {
          name: "allowed-dependencies",
          comment: ALLOWED_COMMENT,
          severity: "error",
          from,
          to: { dependencyTypes: NPM_TYPES, pathNot: allowed },
        },
        {
          name: "allowed-dependencies",
          comment: ALLOWED_COMMENT,
          severity: "error",
          from,
          to: { couldNotResolve: true, path: UNRESOLVED_NPM, pathNot: ["^@kxm/", ...allowed] },
        },
      );
    }
    if (row.node !== ANY_BUILTIN && !isPure) {
      rules.push({
        name: "allowed-dependencies",
        comment: ALLOWED_COMMENT,
        severity: "error",
        from,
        to: {
          dependencyTypes: ["core"],
          ...(row.node.length === 0 ? {} : { pathNot: `^(${row.node.map(escapeRegExp).join("|")})(/|$)` }),
        },
      });
    }

    if (pkg === undefined) continue;
    const runtime = runtimeDependencies(pkg.manifest);
    const devOnly = Object.keys(pkg.manifest.devDependencies ?? {}).filter(
      (name) => !runtime.has(name) && FOLDER_OF.has(name),
    );
    if (devOnly.length > 0) {
      rules.push({
        name: "src-dev-dependency",
        comment: DEV_COMMENT,
        severity: "error",
        from,
        to: { path: workspaceTargets(devOnly), pathNot: own, dependencyTypesNot: ["local"] },
      });
    }
    rules.push({
      name: "src-undeclared-dependency",
      comment: UNDECLARED_COMMENT,
      severity: "error",
      from,
      to: {
        path: ANY_WORKSPACE_PACKAGE,
        pathNot: [
          ...own,
          ...workspaceTargets([...runtime, ...Object.keys(pkg.manifest.devDependencies ?? {})]),
        ],
        dependencyTypesNot: ["local"],
      },
    });
  }
  const srcOfRows = `^(${Object.keys(ALLOWED).map(escapeRegExp).join("|")})/src/`;
  rules.push(
    {
      name: "src-dev-dependency",
      comment: DEV_COMMENT,
      severity: "error",
      from: { path: srcOfRows },
      to: { dependencyTypes: ["npm-dev"] },
    },
    {
      name: "src-undeclared-dependency",
      comment: UNDECLARED_COMMENT,
      severity: "error",
      from: { path: srcOfRows },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
  );
  return rules;
}

assertSwcAvailable();
assertEveryPackageHasARow();

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
      comment: PURE_IO_COMMENT,
      severity: "error",
      from: { path: PURE_SRC },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "pure-package-io",
      comment: PURE_IO_COMMENT,
      severity: "error",
      from: { path: PURE_SRC },
      to: { path: PURE_IO_PACKAGES },
    },
    {
      name: "contract-client-subpath",
      comment:
        "The hub client (src/client.ts, the @kxm/contract/client subpath) calls fetch and waits on timers. Nothing " +
        "else in the pure packages' src imports it, so @kxm/contract's root entry never reaches it.",
      severity: "error",
      from: { path: PURE_SRC, pathNot: CLIENT },
      to: { path: [CLIENT, "^@kxm/contract/client(/|$)"] },
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
    ...tableRules(),
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
    // Our own build output, caches and coverage; not a dist folder inside node_modules: edges into an npm package
    // that resolves into its dist (@modelcontextprotocol/sdk) must stay visible to the rules.
    exclude: { path: "^(?!.*node_modules/).*(^|/)(dist|\\.turbo|\\.git|coverage)(/|$)" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@kxm/source", "import", "require", "node", "default"],
    },
  },
};
