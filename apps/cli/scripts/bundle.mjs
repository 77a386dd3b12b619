// Bundles the fast paths' libraries (dist/fast/*-lib.js, compiled by tsc) into one file each, so that
// `kxm memory brief` and `kxm memory revision` load a single module rather than a few hundred.
import { sep } from "node:path";
import { build } from "esbuild";

// zod's `z.locales` (and `z.core.locales`) re-export every translation of its messages (a quarter of the brief's bundle). KXM never reads
// it (messages are English, and zod registers English from its schemas module, not from there), so the bundles
// get an empty module in its place.
const withoutZodLocales = {
  name: "without-zod-locales",
  setup(bundle) {
    const importers = [
      ["zod", "v4", "classic", "external.js"].join(sep),
      ["zod", "v4", "core", "index.js"].join(sep),
    ];
    bundle.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      importers.some((importer) => args.importer.endsWith(`${sep}${importer}`))
        ? { path: "zod-locales", namespace: "kxm-empty" }
        : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: "kxm-empty" }, () => ({ contents: "export {};", loader: "js" }));
  },
};

await build({
  entryPoints: ["dist/fast/brief-lib.js", "dist/fast/revision-lib.js"],
  outdir: "dist/fast",
  entryNames: "[name].bundle",
  bundle: true,
  minify: true,
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning",
  plugins: [withoutZodLocales],
  // write-file-atomic and its dependencies are CommonJS: give the bundle a require for Node's own modules.
  banner: {
    js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);',
  },
});
