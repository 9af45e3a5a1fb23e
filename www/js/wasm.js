// Loads the gramlink package inside a worker without any fetch: the server serves
// the wasm bytes as a module (/pkg/gramlink_bg.wasm.js), which script-src allows
// while connect-src 'none' forbids every network request.
import { initSync } from '/pkg/gramlink.js';
import wasmBase64 from '/pkg/gramlink_bg.wasm.js';
import { fromBase64 } from './common.js';

initSync({ module: fromBase64(wasmBase64) });

export * from '/pkg/gramlink.js';
