// What `kxm memory brief` needs, and nothing else: bundled at build into brief-lib.bundle.js (scripts/bundle.mjs).
export { isKxmError } from "@kxm/contract";
export { deliverableFacts, findProjectRoot, renderBrief } from "@kxm/memory-git";
