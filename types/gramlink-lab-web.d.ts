// The browser build of gramlink/lab (pkg/web/gramlink_lab.js): the same API as
// Node's, instantiated by its caller first, as the core's web build
// (./gramlink-web.d.ts): `await init()` fetches gramlink_lab_bg.wasm next to the
// module, or `initSync({ module: bytes })`.
export * from './gramlink-lab.js';
export type { InitInput, InitOutput, SyncInitInput } from './gramlink-web.js';
export { default, initSync } from './gramlink-web.js';
