import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, redactSecrets } from "../src/index.js";
import { INNOCENT_FIXTURES, SECRET_FIXTURES } from "./fixtures/secrets.js";

/** The longest window of the secret that may survive: any 12 consecutive characters count as a leak. */
function leaks(secret: string, output: string): boolean {
  const window = Math.min(12, secret.length);
  for (let start = 0; start + window <= secret.length; start++) {
    if (output.includes(secret.slice(start, start + window))) return true;
  }
  return false;
}

describe("redaction corpus", () => {
  it("has at least 30 secret kinds and 30 innocent look-alikes", () => {
    expect(new Set(SECRET_FIXTURES.map((f) => f.kind)).size).toBeGreaterThanOrEqual(30);
    expect(new Set(INNOCENT_FIXTURES.map((f) => f.kind)).size).toBeGreaterThanOrEqual(30);
    for (const fixture of SECRET_FIXTURES) expect(fixture.text).toContain(fixture.secret);
  });

  it("redacts every secret whole (100% recall) and leaves every look-alike byte-identical", () => {
    const misses = SECRET_FIXTURES.filter((f) => {
      const out = redactSecrets(f.text);
      return leaks(f.secret, out) || !out.includes(REDACTED);
    });
    const falsePositives = INNOCENT_FIXTURES.filter((f) => redactSecrets(f.text) !== f.text);
    console.log(
      [
        "| corpus | cases | caught / changed | recall / false positives |",
        "|---|---:|---:|---:|",
        `| secrets | ${SECRET_FIXTURES.length} | ${SECRET_FIXTURES.length - misses.length} | ${(
          (100 * (SECRET_FIXTURES.length - misses.length)) / SECRET_FIXTURES.length
        ).toFixed(1)}% |`,
        `| innocent | ${INNOCENT_FIXTURES.length} | ${falsePositives.length} | ${falsePositives.length} |`,
        ...misses.map((f) => `miss: ${f.kind}: ${JSON.stringify(redactSecrets(f.text))}`),
        ...falsePositives.map((f) => `false positive: ${f.kind}: ${JSON.stringify(redactSecrets(f.text))}`),
      ].join("\n"),
    );
    expect(misses.map((f) => f.kind)).toEqual([]);
    expect(falsePositives.map((f) => f.kind)).toEqual([]);
  });
});

const HEX64 = "0123456789abcdef".repeat(4);
const fakeGhp = (body: string): string => ["gh", "p_", body.padEnd(36, "0")].join("");
const fakeShopify = ["shp", "at_", "FAKEexampleSHOPIFY".padEnd(32, "0")].join("");

describe("redactSecrets", () => {
  it("replaces the whole match, keeping the text around it", () => {
    expect(redactSecrets(`push used ${fakeGhp("FAKE")} today`)).toBe("push used [redacted] today");
  });

  it("merges overlapping matches into one [redacted]: a JWT inside a JSON token pair", () => {
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.RkFLRS1zaWduYXR1cmU";
    expect(redactSecrets(`{"id_token": "${jwt}"}`)).toBe("{[redacted]}");
  });

  it("merges adjacent matches into one [redacted]", () => {
    expect(redactSecrets(`{"access_token":"x1"${fakeGhp("FAKE")}}`)).toBe("{[redacted]}");
  });

  it("redacts a key glued to another token, which only shows its boundary once the token is gone", () => {
    const mailgun = ["ke", "y-", "FAKEexample".padEnd(32, "0")].join("");
    const pat = ["github", "_pat_", "11FAKE0EXAMPLE".padEnd(22, "0"), "_", "fake".padEnd(59, "0")].join("");
    expect(redactSecrets(`${mailgun}${pat}`)).toBe("[redacted]");
  });

  it("redacts separate secrets separately", () => {
    expect(redactSecrets(`${fakeGhp("A")}, ${fakeGhp("B")}`)).toBe("[redacted], [redacted]");
  });

  it("keeps the 64-hex digest of a skill source reference (docs/reference/behaviour.md section 9 point 6)", () => {
    const ref = `skill:deploy-checklist.0123456789ab@${HEX64}`;
    expect(redactSecrets(ref)).toBe(ref);
  });

  it("keeps the 64-hex digest of a memory revision", () => {
    expect(redactSecrets(`pinned ctxrev_${HEX64}.`)).toBe(`pinned ctxrev_${HEX64}.`);
  });

  it("still redacts a bare 64-hex string next to a kept skill digest", () => {
    const ref = `skill:deploy.0123456789ab@${HEX64}`;
    expect(redactSecrets(`${ref} signed with ${"ab".repeat(32)}`)).toBe(`${ref} signed with [redacted]`);
  });

  it("redacts a token assignment even when its value is a revision", () => {
    expect(redactSecrets(`KXM_AUTH_TOKEN=ctxrev_${HEX64}`)).toBe("[redacted]");
  });

  it("redacts a 64-hex string that only looks like a revision or skill digest", () => {
    expect(redactSecrets(`rev_${HEX64}`)).toBe("rev_[redacted]");
    expect(redactSecrets(`user@${HEX64}`)).toBe("user@[redacted]");
  });

  it("does not let a secretlint-disable comment switch redaction off", () => {
    for (const comment of [
      "<!-- secretlint-disable -->",
      "// secretlint-disable-line",
      "# secretlint-disable-next-line",
    ]) {
      expect(redactSecrets(`${comment}\n${fakeShopify}`)).toBe(`${comment}\n[redacted]`);
    }
  });

  it("returns the same string for text without secrets", () => {
    expect(redactSecrets("")).toBe("");
    expect(redactSecrets("Releases are cut from the main branch")).toBe(
      "Releases are cut from the main branch",
    );
  });

  it("is idempotent on the corpus: redacting twice gives what redacting once gives", () => {
    for (const { text } of [...SECRET_FIXTURES, ...INNOCENT_FIXTURES]) {
      const once = redactSecrets(text);
      expect(redactSecrets(once)).toBe(once);
    }
  });

  it("is idempotent on any mix of secrets, look-alikes and noise", () => {
    const piece = fc.oneof(
      fc.constantFrom(...SECRET_FIXTURES.map((f) => f.secret), ...SECRET_FIXTURES.map((f) => f.text)),
      fc.constantFrom(...INNOCENT_FIXTURES.map((f) => f.text)),
      fc.constantFrom(" ", "\n", "=", ":", '"', "'", "_", "-", ".", "/", "@", "?", "&", "[redacted]"),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const once = redactSecrets(pieces.join(""));
        expect(redactSecrets(once)).toBe(once);
      }),
      { numRuns: 400 },
    );
  });

  it("leaves text without secret-like characters unchanged", () => {
    // No digits, no a-f, no upper case, no `_ - . : = / @ " '`: nothing a credential pattern can start from.
    const safe = fc.constantFrom(..."ghijklmnopqrstuvwxyz ,;!?()\néßøçñ日本語".split(""));
    fc.assert(
      fc.property(fc.array(safe, { maxLength: 300 }), (chars) => {
        const text = chars.join("");
        expect(redactSecrets(text)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it("never leaves a fixture secret behind when secrets are glued into one line", () => {
    fc.assert(
      fc.property(
        fc.subarray([...SECRET_FIXTURES], { minLength: 1 }),
        fc.constantFrom("", " ", "\n", " | "),
        (picked, sep) => {
          const out = redactSecrets(picked.map((f) => f.text).join(sep));
          for (const f of picked) expect(out.includes(f.secret)).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });
});
