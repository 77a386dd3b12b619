// What the CLI prints must not drive the terminal. Text from outside (a hub's problem detail, a file's contents, git
// output, a run's name, a fact's summary) can carry escape sequences: an OSC sets the window title or writes the
// clipboard, a CSI moves the cursor or erases what was printed, a bidi override makes text read other than it is.
// So every line the CLI prints passes through `terminalText` (human output) or `terminalJson` (--json) at the
// output boundary (base.ts and the fast paths). Why a function of our own rather than strip-ansi: ansi-regex matches
// CSI and BEL-terminated OSC with a narrow body only (an OSC title holding a space leaves its text behind), and
// none of it covers ST-terminated strings, DCS/APC/PM/SOS, lone ESC, other C0/C1 controls or bidi controls.

// ESC-introduced sequences, each taken whole (to its terminator, or to the end of the text when unterminated, as a
// terminal would swallow it):
// - CSI: ESC [ (or C1 CSI) parameter bytes, intermediate bytes, a final byte;
// - OSC: ESC ] (or C1 OSC) up to BEL, ST (ESC \) or C1 ST;
// - DCS, SOS, PM, APC: ESC P/X/^/_ (or their C1 forms) up to ST;
// - any other escape: ESC, intermediate bytes, a final byte (or a lone ESC).
const SEQUENCES = new RegExp(
  [
    "(?:\\u001B\\[|\\u009B)[\\u0030-\\u003F]*[\\u0020-\\u002F]*[\\u0040-\\u007E]?",
    "(?:\\u001B\\]|\\u009D)[^\\u0007\\u001B\\u009C]*(?:\\u0007|\\u001B\\\\|\\u009C)?",
    "(?:\\u001B[PX^_]|[\\u0090\\u0098\\u009E\\u009F])[^\\u001B\\u009C]*(?:\\u001B\\\\|\\u009C)?",
    "\\u001B[\\u0020-\\u002F]*[\\u0030-\\u007E]?",
  ].join("|"),
  "g",
);

// C0 controls but tab and newline, DEL, C1 controls, and the bidi embeddings, overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/**
 * `text` without escape sequences and control characters, safe to write to a terminal. Newlines and tabs stay
 * (a listing or a brief has several lines); a carriage return goes, as it would overwrite the line.
 */
export function terminalText(text: string): string {
  return text.replace(SEQUENCES, "").replace(CONTROLS, "");
}

/** `text` as one safe line: what {@link terminalText} keeps, with each run of line breaks and tabs a space. */
export function terminalLine(text: string): string {
  return terminalText(text.replace(/[^\S\r\n\t]*[\r\n\t]+\s*/g, " ")).trim();
}

// JSON.stringify escapes C0 controls (so ESC is printed as \u001b, never raw) but writes DEL, C1 controls, bidi
// controls and the line and paragraph separators raw. These can only occur inside JSON strings, where an escape
// means the same character: the value parsed back is exact, and the terminal never receives the raw character.
const RAW_IN_JSON = /[\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;

/** `value` as indented JSON (and a newline) in which no character could drive a terminal; parsing it is exact. */
export function terminalJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? "null";
  return `${text.replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;
}
