// The npm package run in Node: the same wasm the page loads, used to know the expected values.
export { Simulation, builtInScenarios } from "../../../js/node.js";
