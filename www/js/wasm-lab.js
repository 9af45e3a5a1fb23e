// The lab build (gramlink/lab: the core's API, runScenario, makeTwin and Kuzu's roles)
// for the workers of the pages that use it, loaded as wasm.js loads the core.
import { initSync } from '/pkg/gramlink_lab.js';
import wasmBase64 from '/pkg/gramlink_lab_bg.wasm.js';
import { fromBase64 } from './common.js';

initSync({ module: fromBase64(wasmBase64) });

export * from '/pkg/gramlink_lab.js';
