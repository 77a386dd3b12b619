import { describe, expect, it } from "vitest";
import { terminalJson, terminalLine, terminalText } from "../src/terminal-text.js";

// What terminalText must take out: each kind of sequence a terminal acts on, whole, and nothing else.

const ESC = "\u001b";
const BEL = "\u0007";
const ST = `${ESC}\\`;

describe("terminalText", () => {
  it.each([
    ["OSC title ended by BEL", `${ESC}]0;owned${BEL}`],
    ["OSC title with spaces ended by ST", `${ESC}]2;a title with spaces${ST}`],
    ["OSC 52 clipboard write", `${ESC}]52;c;b3duZWQ=${BEL}`],
    ["OSC 8 hyperlink", `${ESC}]8;;http://evil.example/${ST}`],
    ["C1 OSC ended by C1 ST", "\u009d0;title\u009c"],
    ["CSI erase display", `${ESC}[2J`],
    ["CSI colour with parameters", `${ESC}[31;1;4m`],
    ["CSI private mode", `${ESC}[?1049h`],
    ["C1 CSI", "\u009b2J"],
    ["DCS (sixel)", `${ESC}Pq#0;2;0;0;0${ST}`],
    ["APC", `${ESC}_payload${ST}`],
    ["PM", `${ESC}^payload${ST}`],
    ["SOS", `${ESC}Xpayload${ST}`],
    ["C1 DCS", "\u0090payload\u009c"],
    ["ESC c (reset)", `${ESC}c`],
    ["ESC ( B (charset)", `${ESC}(B`],
    ["BEL, BS, CR, NUL, VT, FF", "\u0007\b\r\u0000\u000b\u000c"],
    ["DEL and C1 NEL", "\u007f\u0085"],
    ["bidi override and isolates", "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"],
  ])("removes %s whole", (_, sequence) => {
    expect(terminalText(`before${sequence}after`)).toBe("beforeafter");
  });

  it("removes a lone ESC, and the one character after an ESC that makes an escape with it", () => {
    expect(terminalText(`kept${ESC}`)).toBe("kept");
    expect(terminalText(`a${ESC}7b`)).toBe("ab");
    expect(terminalText(`a${ESC}${ESC}]0;t${BEL}b`)).toBe("ab");
  });

  it("swallows an unterminated OSC to the end, as a terminal would", () => {
    expect(terminalText(`kept${ESC}]0;never ended`)).toBe("kept");
  });

  it("keeps newlines, tabs and any printable text, Unicode included", () => {
    const text = "line one\n\tindented — «déjà vu» 日本語 🙂 [x] 100%";
    expect(terminalText(text)).toBe(text);
  });

  it("terminalLine makes one line of it", () => {
    expect(terminalLine(`a\n\n b\tc\r\n${ESC}[2Jd `)).toBe("a b c d");
  });
});

describe("terminalJson", () => {
  it("prints no raw control character and parses back exactly", () => {
    const value = { text: `${ESC}]0;t${BEL} \u007f \u0085 \u202e \u2028 plain` };
    const printed = terminalJson(value);
    expect(printed).not.toMatch(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
      /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/,
    );
    expect(JSON.parse(printed)).toEqual(value);
    expect(printed.endsWith("}\n")).toBe(true);
  });
});
