/** A fact's free text on one line: every run of white space (line breaks included) becomes one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
