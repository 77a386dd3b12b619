// The public entry of @kxm/browser; see docs/guides/browser.md.
export {};
