import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode, isKxmError, KxmError } from "@kxm/contract";
import { describe, expect, test } from "vitest";

const ERRORS_DOC = fileURLToPath(new URL("../../../docs/reference/errors.md", import.meta.url));

type Catalogue = Readonly<Record<string, { readonly status: number; readonly title: string }>>;

/** The `## ` sections of a Markdown page, by heading text, in order (a repeated heading appears twice). */
function sections(markdown: string): [heading: string, body: string][] {
  const withoutFences = markdown.replace(/^```[\s\S]*?^```/gm, "");
  return withoutFences
    .split(/^## /m)
    .slice(1)
    .map((part) => {
      const newline = part.indexOf("\n");
      return [
        part.slice(0, newline === -1 ? undefined : newline).trim(),
        newline === -1 ? "" : part.slice(newline),
      ];
    });
}

/** Every way docs/reference/errors.md can disagree with the catalogue, as one line each; none means it agrees. */
function errorDocProblems(markdown: string, catalogue: Catalogue): string[] {
  const problems: string[] = [];
  const found = sections(markdown);
  const headings = found.map(([heading]) => heading);
  for (const code of Object.keys(catalogue)) {
    const count = headings.filter((heading) => heading === code).length;
    if (count === 0) problems.push(`${code}: no "## ${code}" heading`);
    if (count > 1) problems.push(`${code}: ${count} headings`);
  }
  for (const [heading, body] of found) {
    const entry = Object.hasOwn(catalogue, heading) ? catalogue[heading] : undefined;
    if (!entry) {
      problems.push(`${heading}: documented, but not in the catalogue`);
      continue;
    }
    const statuses = [...body.matchAll(/^- \*\*HTTP status:\*\* (\d{3})\b/gm)].map((m) => Number(m[1]));
    if (statuses.length !== 1) problems.push(`${heading}: ${statuses.length} "HTTP status" lines, not one`);
    else if (statuses[0] !== entry.status) {
      problems.push(`${heading}: documented status ${statuses[0]}, catalogue ${entry.status}`);
    }
    const title = /^- \*\*Title:\*\* (.+)$/m.exec(body)?.[1]?.trim();
    if (title !== entry.title)
      problems.push(`${heading}: documented title "${title}", catalogue "${entry.title}"`);
    if (!body.includes(`\`code: "${heading}"\`, \`status: ${entry.status}\``)) {
      problems.push(`${heading}: no shape line with its code and status`);
    }
    if (!/\*\*When it happens\.\*\*/.test(body)) problems.push(`${heading}: no "When it happens" paragraph`);
    if (!/\*\*What to do\.\*\*/.test(body)) problems.push(`${heading}: no "What to do" paragraph`);
  }
  return problems;
}

describe("docs/reference/errors.md", () => {
  const doc = readFileSync(ERRORS_DOC, "utf8");

  test("documents every catalogue code once, with its status, title, shape, cause and remedy", () => {
    expect(errorDocProblems(doc, ERROR_CATALOGUE)).toEqual([]);
  });

  test("lists the codes in catalogue order", () => {
    expect(sections(doc).map(([heading]) => heading)).toEqual(ERROR_CODES);
  });

  describe("the check itself", () => {
    const section = (code: string, status: number, title: string) =>
      [
        `## ${code}`,
        "",
        `- **HTTP status:** ${status} Something`,
        `- **Title:** ${title}`,
        `- **Shape:** \`code: "${code}"\`, \`status: ${status}\``,
        "",
        "**When it happens.** Then.",
        "",
        "**What to do.** This.",
        "",
      ].join("\n");
    const catalogue: Catalogue = { alpha: { status: 400, title: "A" }, beta: { status: 404, title: "B" } };
    const good = `# Errors\n\n${section("alpha", 400, "A")}\n${section("beta", 404, "B")}`;

    test("passes a page that matches the catalogue", () => {
      expect(errorDocProblems(good, catalogue)).toEqual([]);
    });

    test("fails when a catalogue code has no heading", () => {
      expect(errorDocProblems(`# Errors\n\n${section("alpha", 400, "A")}`, catalogue)).toEqual([
        'beta: no "## beta" heading',
      ]);
    });

    test("fails when the page documents a code the catalogue does not have", () => {
      expect(errorDocProblems(`${good}\n${section("gamma", 500, "C")}`, catalogue)).toEqual([
        "gamma: documented, but not in the catalogue",
      ]);
    });

    test("fails when a documented status differs from the catalogue", () => {
      const wrong = `# Errors\n\n${section("alpha", 400, "A")}\n${section("beta", 410, "B")}`;
      expect(errorDocProblems(wrong, catalogue)).toEqual([
        "beta: documented status 410, catalogue 404",
        "beta: no shape line with its code and status",
      ]);
    });

    test("fails when a code is documented twice", () => {
      expect(errorDocProblems(`${good}\n${section("beta", 404, "B")}`, catalogue)).toEqual([
        "beta: 2 headings",
      ]);
    });

    test("ignores '## ' lines inside code blocks", () => {
      expect(errorDocProblems(`${good}\n\`\`\`md\n## gamma\n\`\`\`\n`, catalogue)).toEqual([]);
    });

    test("treats inherited property names as unknown codes", () => {
      expect(errorDocProblems(`${good}\n${section("constructor", 500, "C")}`, catalogue)).toEqual([
        "constructor: documented, but not in the catalogue",
      ]);
    });
  });
});

describe("the error catalogue", () => {
  test("ERROR_CODES lists every catalogue code in catalogue order", () => {
    expect(ERROR_CODES).toEqual(Object.keys(ERROR_CATALOGUE));
  });

  test("codes are snake_case and statuses are HTTP error statuses", () => {
    for (const code of ERROR_CODES) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      const { status } = ERROR_CATALOGUE[code];
      expect(status >= 400 && status <= 599, code).toBe(true);
    }
  });
});

describe("KxmError", () => {
  test("carries its code, the catalogue status for that code, and the message", () => {
    const error = new KxmError("state_contradiction", "state release.branch has 2 current values");
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("KxmError");
    expect(error.code).toBe("state_contradiction");
    expect(error.status).toBe(409);
    expect(error.message).toBe("state release.branch has 2 current values");
  });

  test.each(ERROR_CODES)("takes the status of %s from the catalogue", (code) => {
    expect(new KxmError(code, "m").status).toBe(ERROR_CATALOGUE[code].status);
  });

  test("toJSON gives exactly code, status and message, and survives JSON", () => {
    const error = new KxmError("context_limits_exceeded", "context request task: too big");
    const wire = { code: "context_limits_exceeded", status: 400, message: "context request task: too big" };
    expect(error.toJSON()).toEqual(wire);
    expect(JSON.parse(JSON.stringify(error))).toEqual(wire);
  });
});

describe("isKxmError", () => {
  test("is true for a KxmError", () => {
    expect(isKxmError(new KxmError("invalid_request", "m"))).toBe(true);
  });

  test("is true for an error from a duplicated copy of the package: same code and status, other class", () => {
    class KxmErrorFromAnotherCopy extends Error {
      readonly code = "state_contradiction";
      readonly status = 409;
    }
    const foreign: unknown = new KxmErrorFromAnotherCopy("two current values");
    expect(foreign instanceof KxmError).toBe(false);
    expect(isKxmError(foreign)).toBe(true);
  });

  test("is true for the wire form after it crossed a process boundary", () => {
    const wire: unknown = JSON.parse(JSON.stringify(new KxmError("rate_limited", "slow down")));
    expect(isKxmError(wire)).toBe(true);
  });

  test("is false when the status is not the catalogue status of the code", () => {
    expect(isKxmError({ code: "state_contradiction", status: 400, message: "m" })).toBe(false);
    expect(isKxmError({ code: "state_contradiction", status: "409", message: "m" })).toBe(false);
    expect(isKxmError({ code: "state_contradiction", message: "m" })).toBe(false);
  });

  test("is false for an unknown code, including inherited property names", () => {
    for (const code of ["no_such_code", "STATE_CONTRADICTION", "constructor", "__proto__", "toString", ""]) {
      expect(isKxmError({ code, status: 500, message: "m" }), code).toBe(false);
    }
    expect(isKxmError({ code: 409, status: 409 })).toBe(false);
  });

  test("is false for values that are not objects", () => {
    for (const value of [null, undefined, "invalid_request", 400, true, Symbol("x")]) {
      expect(isKxmError(value)).toBe(false);
    }
    expect(isKxmError(new Error("invalid_request"))).toBe(false);
  });

  test("narrows the type, so code can be matched without a cast", () => {
    const value: unknown = new KxmError("not_found", "m");
    if (!isKxmError(value)) throw new Error("expected a KxmError");
    const code: ErrorCode = value.code;
    expect(code).toBe("not_found");
  });
});
