import { KxmError } from "@kxm/contract";
import type { KxmStore } from "./types.js";

/** Where in a call's arguments the first U+0000 sits (`input.summary`, `ids[2]`), or undefined for none. */
function nulAt(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === "string") return value.includes("\u0000") ? path : undefined;
  if (depth > 32 || value === null || typeof value !== "object" || value instanceof Date) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulAt(value[i], `${path}[${i}]`, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, inner] of Object.entries(value)) {
    const found = nulAt(inner, `${path}.${key}`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Whether any string in a value holds U+0000, without building a path: what every call pays. A packet's audit is
 * hundreds of nodes, and naming each one's path as it is visited cost more than the store's write of it.
 */
function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (depth > 32 || value === null || typeof value !== "object" || value instanceof Date) return false;
  if (Array.isArray(value)) {
    for (const inner of value) if (holdsNul(inner, depth + 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (Object.hasOwn(record, key) && holdsNul(record[key], depth + 1)) return true;
  }
  return false;
}

/**
 * The store with one rule for text both engines share: a string holding U+0000 (NUL), anywhere in any argument,
 * is refused with `invalid_request` before any work. PostgreSQL's text cannot hold it, so neither engine takes it:
 * a summary, key, id or reason is the same on SQLite and PostgreSQL, and moving a hub between them loses nothing.
 * The methods run on the store itself (`apply(target)`), so its private fields stay reachable.
 */
export function refusingNul(store: KxmStore): KxmStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        for (let i = 0; i < args.length; i++) {
          if (!holdsNul(args[i])) continue;
          const at = nulAt(args[i], `argument ${i + 1}`);
          if (at !== undefined) {
            return Promise.reject(
              new KxmError(
                "invalid_request",
                `text must not hold U+0000 (NUL): ${at.replace(/^argument \d+\./, "")}`,
              ),
            );
          }
        }
        return value.apply(target, args);
      };
    },
  });
}
