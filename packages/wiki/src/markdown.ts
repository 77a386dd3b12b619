// Markdown text helpers: every piece of record text that reaches a page goes through one of these, so a summary
// can never inject a link, a heading, HTML or a lint marker.

/** Record text as inline Markdown: one line, Markdown and HTML syntax escaped. */
export function text(value: string): string {
  return value
    .replace(/\s*[\r\n]+\s*/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/([\\`*_[\]#|~!])/g, "\\$1")
    .trim();
}

/** A code span holding `value` verbatim (one line), with enough backticks around it. */
export function code(value: string): string {
  const line = value.replace(/[\r\n]+/g, " ");
  let longest = 0;
  for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = "`".repeat(longest + 1);
  const pad = line.startsWith("`") || line.endsWith("`") || longest > 0 ? " " : "";
  return `${fence}${pad}${line}${pad}${fence}`;
}

/**
 * The HTML anchor name of a record id: the id itself when it is only letters, digits, `_`, `.` and `-` (every id
 * KXM mints), else each other character as `~` and its UTF-16 code in hex, so the name is a valid fragment.
 */
export function anchorOf(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, (c) => `~${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A marker value: percent-encoded, so it holds no space, quote or `>` and cannot end the comment. */
export function markerValue(value: string): string {
  return encodeURIComponent(value);
}
