// Node.js entry of the package: the same exports as the browser build, already initialised
// from the .wasm file next to it (Node's fetch cannot read file: URLs).
import { readFileSync } from "node:fs";
import { initSync } from "../pkg/nameserver_wasm.js";

initSync({ module: readFileSync(new URL("../pkg/nameserver_wasm_bg.wasm", import.meta.url)) });

export * from "../pkg/nameserver_wasm.js";

/** Already initialised; kept so `await init()` works the same in browsers and in Node. */
export default async function init() {}
