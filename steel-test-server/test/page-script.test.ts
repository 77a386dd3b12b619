// The scrape's page-side functions survive a transpiler that keeps function names: tsx compiles each inner
// function of pageMarkdown to a call of its module's `__name` helper, which the page does not have (under tsx,
// a markdown scrape answered 500 until pageScript defined one).
import { expect, test } from "vitest";
import { pageScript } from "../src/pages.js";

// What such a transpiler makes of `() => { const double = (x) => x * 2; return double(21); }`.
const transpiled = new Function(
  "return () => { const double = __name((x) => x * 2, 'double'); return double(21); }",
)() as () => number;

const run = (script: string): unknown => new Function(`return ${script}`)();

test("a function's source calling __name runs as a page script, and would not on its own", () => {
  expect(run(pageScript(transpiled))).toBe(42);
  expect(() => run(`(${transpiled.toString()})()`)).toThrow(/__name is not defined/);
});
