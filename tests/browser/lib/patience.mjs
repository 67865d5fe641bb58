// How long a test waits for something that should happen at once: a hang guard, never a
// measure of speed (load makes anything late; speed is for scripts/bench-page.mjs).
export const PATIENCE = 30_000;
