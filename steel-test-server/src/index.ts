// A Steel-compatible test server; see src/server.ts once it lands.
export {};
