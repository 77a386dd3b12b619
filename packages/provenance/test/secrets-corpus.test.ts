import { describe, expect, it } from "vitest";
import { seededRandom } from "../../../reliability/src/lib/random.mjs";
// The corpus is shared with the reliability suite's `secrets` scenario, which runs it over the built package.
import {
  BENIGN_KINDS,
  benignCases,
  LEAK_RUN,
  leaked,
  SECRET_KINDS,
  scoreCorpus,
  secretCases,
} from "../../../reliability/src/lib/secrets-corpus.mjs";
import { REDACTED, redactSecrets } from "../src/index.js";

// Issue 16's goals: at least 99% of the corpus's secrets removed, at most 1% of its benign texts changed.
const RECALL_GOAL = 0.99;
const FALSE_POSITIVE_GOAL = 0.01;
const SEEDS = [20261202, 7, 31337];

describe("secrets corpus", () => {
  it("has more than 50 kinds, each in a sentence, JSON, a shell command and a log line, and 200 benign texts", () => {
    const cases = secretCases(SEEDS[0] ?? 0);
    expect(SECRET_KINDS.length).toBeGreaterThan(50);
    for (const { kind } of SECRET_KINDS) {
      const contexts = cases.filter((c) => c.kind === kind).map((c) => c.context);
      expect(contexts, kind).toEqual(expect.arrayContaining(["sentence", "json", "shell", "log"]));
    }
    // Unredacted, every case counts as a leak: the check can see each secret where it sits (a PEM body in JSON
    // has its line breaks escaped, so whole-string containment would be too strict).
    for (const c of cases) expect(leaked(c.secret, c.text), `${c.kind}/${c.context}`).toBe(true);
    for (const c of cases) expect(c.secret.length, c.kind).toBeGreaterThanOrEqual(LEAK_RUN);
    const benign = benignCases(SEEDS[0] ?? 0);
    expect(benign.length).toBeGreaterThanOrEqual(200);
    expect(BENIGN_KINDS.map((k) => k.kind)).toEqual(
      expect.arrayContaining([
        "commit-sha",
        "short-sha",
        "uuid",
        "skill-ref-digest",
        "kebab-case-words",
        "branch-with-ticket",
        "ticket-id",
        "base64-text",
        "url-without-password",
        "version-string",
        "css-colour",
        "file-path",
      ]),
    );
    for (const b of benign) expect(b.text, b.kind).not.toBe("");
  });

  it("is generated deterministically from its seed", () => {
    expect(secretCases(5)).toEqual(secretCases(5));
    expect(benignCases(5)).toEqual(benignCases(5));
    expect(secretCases(5)).not.toEqual(secretCases(6));
    const a = seededRandom(1);
    const b = seededRandom(1);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });

  it("counts a secret as leaked when 8 of its characters survive together, and only then", () => {
    expect(leaked("abcdefghijkl", "xx efghijkl yy")).toBe(true);
    expect(leaked("abcdefghijkl", "xx abcdefg [redacted] hijkl")).toBe(false);
    expect(leaked("abcdefghijkl", "[redacted]")).toBe(false);
  });

  it.each(SEEDS)(
    "removes at least 99 percent of secrets and changes at most 1 percent of benign texts (seed %i)",
    (seed) => {
      const score = scoreCorpus(redactSecrets, seed);
      const recall = 1 - score.misses.length / score.secrets;
      const falsePositiveRate = score.falsePositives.length / score.benign;
      // Kinds and contexts only: a miss's text holds the (fake) secret, and the report names where to look.
      const misses = score.misses.map((c) => `${c.kind}/${c.context}`);
      const falsePositives = score.falsePositives.map((c) => c.kind);
      expect(
        recall,
        `recall over ${score.secrets} secrets; misses: ${misses.join(", ")}`,
      ).toBeGreaterThanOrEqual(RECALL_GOAL);
      expect(
        falsePositiveRate,
        `false positives over ${score.benign} benign texts: ${falsePositives.join(", ")}`,
      ).toBeLessThanOrEqual(FALSE_POSITIVE_GOAL);
      // Today the corpus is clean: keep it so, and name anything that slips.
      expect(misses).toEqual([]);
      expect(falsePositives).toEqual([]);
    },
  );
});

// Fake values built from their formats at run time, so no literal credential sits in the repository.
const rnd = seededRandom(16);
const pick = (alphabet: string, length: number): string =>
  Array.from({ length }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join("");
const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";
const PASSWORD = `${pick(BASE62, 10)}7${pick(BASE62, 5)}`;
const HEX32 = pick(HEX, 32);
const SID = `AC${pick(HEX, 32)}`;

describe("the kinds issue 16 found unredacted", () => {
  it.each([
    ["PGPASSWORD=", `PGPASSWORD=${PASSWORD} psql -h db -U app`, "[redacted] psql -h db -U app"],
    ["mysql -p'…'", `mysql -u root -p'${PASSWORD}' shop`, "mysql -u root [redacted] shop"],
    ["mysql -p…", `mysqldump -u backup -p${PASSWORD} shop`, "mysqldump -u backup [redacted] shop"],
    [
      "sshpass -p '…'",
      `sshpass -p '${PASSWORD}' ssh deploy@10.0.0.5`,
      "sshpass [redacted] ssh deploy@10.0.0.5",
    ],
    ["<password>", `<server><password>${PASSWORD}</password></server>`, "<server>[redacted]</server>"],
    [
      "Docker config.json auth",
      `{"auths": {"ghcr.io": {"auth": "${Buffer.from(`ci:${PASSWORD}`).toString("base64")}"}}}`,
      '{"auths": {"ghcr.io": {[redacted]}}}',
    ],
    [
      "Okta SSWS header",
      `curl -H "Authorization: SSWS 00${pick(BASE62, 40)}" https://kxm.okta.com/api/v1/users`,
      'curl -H "[redacted]" https://kxm.okta.com/api/v1/users',
    ],
    ["Okta apiToken", `{"apiToken": "00${pick(BASE62, 40)}"}`, "{[redacted]}"],
    [
      "Twilio authToken",
      `{"accountSid": "${SID}", "authToken": "${HEX32}"}`,
      `{"accountSid": "${SID}", [redacted]}`,
    ],
    [
      "Twilio curl -u",
      `curl https://api.twilio.com/2010-04-01/Accounts -u ${SID}:${HEX32}`,
      "curl https://api.twilio.com/2010-04-01/Accounts [redacted]",
    ],
    [
      "Mailgun key in curl",
      `curl -s --user 'api:${pick(HEX, 32)}-${pick(HEX, 8)}-${pick(HEX, 8)}' https://api.mailgun.net/v3/x`,
      "curl -s [redacted] https://api.mailgun.net/v3/x",
    ],
    [
      ".netrc password",
      `machine api.example.com login bot password ${PASSWORD}`,
      "machine api.example.com login bot [redacted]",
    ],
    [
      "Telegram bot URL",
      `https://api.telegram.org/bot${pick("0123456789", 10)}:AA${pick(BASE62, 33)}/sendMessage`,
      "https://api.telegram.org/bot[redacted]/sendMessage",
    ],
    [
      "KXM_AGENT_KEY in an MCP config",
      `{"env": {"KXM_HUB_URL": "http://127.0.0.1:7070", "KXM_AGENT_KEY": "kxm_${pick(BASE62, 43)}"}}`,
      '{"env": {"KXM_HUB_URL": "http://127.0.0.1:7070", [redacted]}}',
    ],
    ["a bare KXM agent key", `key kxm_${pick(BASE62, 43)} issued`, "key [redacted] issued"],
    ["a bare KXM operator token", `token kxo_${pick(BASE62, 43)} issued`, "token [redacted] issued"],
  ])("%s", (_name, text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
    expect(redactSecrets(text)).toContain(REDACTED);
  });

  it("keeps a branch name with a ticket id (feature/sk-1042-…) while an sk- key still goes", () => {
    const branch = "Pushed feature/sk-1042-add-retry-to-upload-worker for review.";
    expect(redactSecrets(branch)).toBe(branch);
    expect(redactSecrets(`key sk-${pick(BASE62, 48)}`)).toBe("key [redacted]");
  });

  it("keeps a command's port and user flags that only look like password flags", () => {
    for (const text of [
      "docker run -p 8080:80 -u 1000:1000 nginx",
      "mysql -h db -u root -p shop",
      "ssh -p 2222 x",
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });
});
