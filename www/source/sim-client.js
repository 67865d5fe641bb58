// Talks to worker.js: one request at a time, answered in order, as promises.
export class SimClient {
  constructor() {
    this.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    this.next = 1;
    this.waiting = new Map();
    this.busy = 0;
    this.worker.onmessage = (e) => {
      const { id, ok, result, error } = e.data;
      const p = this.waiting.get(id);
      this.waiting.delete(id);
      this.busy--;
      if (!p) return;
      if (ok) p.resolve(result);
      else p.reject(new Error(error));
    };
    this.worker.onerror = (e) => {
      for (const p of this.waiting.values()) p.reject(new Error(e.message || "worker failed"));
      this.waiting.clear();
    };
  }

  call(op, args) {
    const id = this.next++;
    this.busy++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, args });
    });
  }

  get idle() {
    return this.busy === 0;
  }
}
