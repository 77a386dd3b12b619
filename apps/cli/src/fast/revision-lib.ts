// What `kxm memory revision` needs, and nothing else: bundled at build into revision-lib.bundle.js
// (scripts/bundle.mjs). It holds no parser, so it loads in a few milliseconds.
export { isKxmError } from "@kxm/contract";
export { computeMemoryRevision, findProjectRoot } from "@kxm/memory-git";
