// URL building and redaction: the CDP URL is the only one with the key, the viewer URL never has it, and
// redactSecret removes any key (property test over random keys) from a message that still carried it.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { redactSecret } from "../src/index.js";
import { describeUrl, REDACTED } from "../src/redact.js";
import { cdpUrl, deploymentOf, endpointUrl, sessionPath, viewerUrl } from "../src/urls.js";

describe("URLs", () => {
  test("the CDP URL: ws for http, wss for https, same host and path prefix, sessionId and apiKey", () => {
    expect(cdpUrl("http://127.0.0.1:3000", "abc", "k1")).toBe(
      "ws://127.0.0.1:3000/v1/devtools?sessionId=abc&apiKey=k1",
    );
    expect(cdpUrl("https://steel.example.com/prefix", "abc", "k1")).toBe(
      "wss://steel.example.com/prefix/v1/devtools?sessionId=abc&apiKey=k1",
    );
  });

  test("the CDP URL encodes the id and the key", () => {
    const url = new URL(cdpUrl("https://h", "a&b", "k&=+/?"));
    expect(url.searchParams.get("sessionId")).toBe("a&b");
    expect(url.searchParams.get("apiKey")).toBe("k&=+/?");
  });

  test("the viewer URL: STEEL_UI_URL?sessionId=<id> when set", () => {
    expect(viewerUrl({ apiUrl: "https://api.example.com", uiUrl: "https://ui.example.com/ui" }, "s 1")).toBe(
      "https://ui.example.com/ui?sessionId=s+1",
    );
  });

  test("the viewer URL without STEEL_UI_URL: open-source Steel's /v1/sessions/debug, not a guessed /ui", () => {
    expect(viewerUrl({ apiUrl: "https://api.example.com/steel" }, "abc")).toBe(
      "https://api.example.com/steel/v1/sessions/debug?sessionId=abc",
    );
  });

  test("endpoints keep the path prefix and session ids cannot escape their path", () => {
    expect(endpointUrl("http://h:1/p", "/v1/sessions").toString()).toBe("http://h:1/p/v1/sessions");
    expect(sessionPath("../../x", "/release")).toBe("/v1/sessions/..%2F..%2Fx/release");
    expect(endpointUrl("http://h", sessionPath("../../x")).pathname).toBe("/v1/sessions/..%2F..%2Fx");
    expect(deploymentOf("https://steel.example.com/a/")).toBe("https://steel.example.com/a");
  });

  test("describeUrl keeps origin and path only", () => {
    expect(describeUrl("wss://u:p@h.example/v1/devtools?sessionId=1&apiKey=secret#x")).toBe(
      "wss://h.example/v1/devtools",
    );
    expect(describeUrl("https://h.example/")).toBe("https://h.example");
    expect(describeUrl("about:blank")).toBe("about:blank");
    expect(describeUrl("not a url")).toBe("an unreadable URL");
  });
});

describe("redactSecret", () => {
  test("removes the key plain and URL-encoded", () => {
    const key = "a b+c/d";
    const text = `plain ${key} encoded ${encodeURIComponent(key)} form ${new URLSearchParams({ apiKey: key })}`;
    const out = redactSecret(text, key);
    expect(out).toBe(`plain ${REDACTED} encoded ${REDACTED} form apiKey=${REDACTED}`);
  });

  test("no key, nothing to do", () => {
    expect(redactSecret("text", undefined)).toBe("text");
    expect(redactSecret("text", "")).toBe("text");
  });

  // Keys as resolveConfig accepts them: printable ASCII without spaces; at least 8 characters, so that a key
  // cannot be a piece of the marker itself.
  const keys = fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 8,
    maxLength: 64,
  });

  test("property: no random key survives in a message built from the CDP URL", () => {
    fc.assert(
      fc.property(keys, fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), (key, before, after) => {
        const url = cdpUrl("https://steel.example.com", "sid", key);
        const message = redactSecret(`${before}${url}${after} ${key} ${encodeURIComponent(key)}`, key)
          .split(REDACTED)
          .join(" ");
        const form = new URLSearchParams({ k: key }).toString().slice(2);
        expect(message.includes(key)).toBe(false);
        expect(message.includes(encodeURIComponent(key))).toBe(false);
        expect(message.includes(form)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
