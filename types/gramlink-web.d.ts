// The browser build (pkg/web): the same API as Node's, instantiated by its caller
// first: `await init()` (fetches gramlink_bg.wasm next to the module) or
// `initSync({ module: bytes })` (in a worker, from bytes already loaded).
export * from './gramlink.js';

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;
export type SyncInitInput = BufferSource | WebAssembly.Module;
/** The raw wasm exports (not for direct use). */
export type InitOutput = { readonly memory: WebAssembly.Memory } & Record<string, unknown>;

export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;
export default function init(
  module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>,
): Promise<InitOutput>;
