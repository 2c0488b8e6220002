/**
 * Lazy loader for opencv.js (WASM). Loaded only by callers that need ORB or ECC, so the offline
 * tool and pure-scale detection never pay the ~0.2 s start-up or the 13 MB.
 */

// opencv.js ships loose typings that do not model its Emscripten runtime well; we keep `any` here
// and expose typed wrappers from orb.ts and register.ts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenCv = any;

let loading: Promise<{ cv: OpenCv }> | undefined;

/**
 * Resolves to `{ cv }` once the WASM runtime is initialised. The module object itself is a
 * thenable: resolving a promise with it (or returning it from an async function) hangs forever, so
 * it always travels wrapped. Use `const { cv } = await loadOpenCv()`.
 */
export function loadOpenCv(): Promise<{ cv: OpenCv }> {
  loading ??= new Promise((resolve, reject) => {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const cv = require('@techstark/opencv-js') as OpenCv;
      if (cv.Mat) resolve({ cv });
      else cv.onRuntimeInitialized = () => resolve({ cv });
    } catch (err) {
      reject(err as Error);
    }
  });
  return loading;
}

/** Runs `fn` and deletes every Mat registered in `mats`, even when `fn` throws. */
export function withMats<T>(fn: (track: <M extends { delete(): void }>(m: M) => M) => T): T {
  const mats: { delete(): void }[] = [];
  try {
    return fn((m) => {
      mats.push(m);
      return m;
    });
  } finally {
    for (const m of mats) m.delete();
  }
}
