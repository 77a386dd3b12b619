// Which methods the hub serves on a concrete path, for the 405 answer to a known path asked with another method.
// Every route is recorded as it is added (Fastify's onRoute hook), as its pattern's segments: `:name` matches any
// one non-empty segment, every other segment only itself.

export class RouteMethods {
  readonly #routes: Array<{ method: string; segments: string[] }> = [];

  add(method: string | readonly string[], url: string): void {
    const segments = url.split("/");
    for (const one of typeof method === "string" ? [method] : method)
      this.#routes.push({ method: one, segments });
  }

  /** The methods some route serves at `path` (no query string), sorted; none for an unknown path. */
  allowed(path: string): string[] {
    const given = path.split("/");
    const methods = new Set<string>();
    for (const route of this.#routes) {
      if (route.segments.length !== given.length) continue;
      const matches = route.segments.every((segment, i) =>
        segment.startsWith(":") ? (given[i] ?? "") !== "" : segment === given[i],
      );
      if (matches) methods.add(route.method);
    }
    return [...methods].sort();
  }
}
