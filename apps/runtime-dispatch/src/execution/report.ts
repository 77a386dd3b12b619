import { redactSecrets } from "@kxm/provenance";

// What an agent reports back, read from its standard output. An agent names its outcome with a line
// `Outcome: <name>`, each piece of evidence with `Evidence: <key> <reference>`, what it tried with `Tried: <text>`
// and why it failed with `Failure: <text>`; Markdown emphasis and list
// markers around them are ignored, the key words are case-insensitive, and the last
// outcome, tried and failure line wins.

/** At most this many characters of an agent's output reach later steps as its snippet. */
export const SNIPPET_CHARS = 2_000;

interface EvidenceLine {
  key: string;
  ref: string;
}

export interface AgentReport {
  /** The outcome named on the last `Outcome:` line, if any. */
  outcome?: string;
  /** The text of the last `Tried:` line, if any: what the attempt tried. */
  tried?: string;
  /** The text of the last `Failure:` line, if any: why the attempt failed, in the agent's words. */
  failure?: string;
  /** Evidence lines in order; a key given twice keeps its last reference. */
  evidence: EvidenceLine[];
}

const OUTCOME = /^outcome\s*:\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*$/i;
const TRIED = /^tried\s*:\s*(\S.*?)\s*$/i;
const FAILURE = /^failure\s*:\s*(\S.*?)\s*$/i;
// `Evidence: diff patches/fix.diff`, `**Evidence:** diff = patches/fix.diff`; the reference is kept as written.
const EVIDENCE =
  /^(?:\*\*|__)?evidence(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*`?([^\s:=`]+)`?\s*[:=]?\s+(\S.*?)\s*$/i;

const LIST_MARKERS = /^(?:[-*+>]\s+)+/;

/** A line without list markers, Markdown emphasis or code ticks. */
function bare(line: string): string {
  return line
    .trim()
    .replace(LIST_MARKERS, "")
    .replace(/\*+|`+|__/g, "")
    .trim();
}

/** Reads the outcome and evidence lines of an agent's output. */
export function readAgentReport(output: string): AgentReport {
  let outcome: string | undefined;
  let tried: string | undefined;
  let failure: string | undefined;
  const evidence = new Map<string, string>();
  for (const raw of output.split(/\r?\n/)) {
    const line = bare(raw);
    const named = OUTCOME.exec(line);
    if (named) {
      outcome = named[1]!;
      continue;
    }
    const triedLine = TRIED.exec(line);
    if (triedLine) {
      tried = triedLine[1]!;
      continue;
    }
    const failureLine = FAILURE.exec(line);
    if (failureLine) {
      failure = failureLine[1]!;
      continue;
    }
    const proof = EVIDENCE.exec(raw.trim().replace(LIST_MARKERS, ""));
    if (proof) {
      evidence.delete(proof[1]!);
      evidence.set(proof[1]!, proof[2]!);
    }
  }
  return {
    ...(outcome === undefined ? {} : { outcome }),
    ...(tried === undefined ? {} : { tried }),
    ...(failure === undefined ? {} : { failure }),
    evidence: [...evidence].map(([key, ref]) => ({ key, ref })),
  };
}

/**
 * The end of an agent's output for later steps' prompts: secrets redacted, at most {@link SNIPPET_CHARS}
 * characters, starting at a line boundary when the output was cut; `undefined` when there is no output.
 */
export function outputSnippet(output: string): string | undefined {
  let text = redactSecrets(output).trimEnd();
  if (text.length > SNIPPET_CHARS) {
    text = text.slice(text.length - SNIPPET_CHARS);
    const newline = text.indexOf("\n");
    if (newline >= 0 && newline < text.length - 1) text = text.slice(newline + 1);
    const first = text.charCodeAt(0);
    if (first >= 0xdc00 && first <= 0xdfff) text = text.slice(1);
  }
  return text.trim() === "" ? undefined : text;
}
