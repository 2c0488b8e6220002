import type { Box } from './pdf-model.js';
import type { PdfJs } from './pdf-document.js';

// Where images are painted on a page: the operator list walked with its transformation matrix.

export type Matrix = [number, number, number, number, number, number];
export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
export const multiply = (m: Matrix, n: Matrix): Matrix => [
  n[0] * m[0] + n[1] * m[2],
  n[0] * m[1] + n[1] * m[3],
  n[2] * m[0] + n[3] * m[2],
  n[2] * m[1] + n[3] * m[3],
  n[4] * m[0] + n[5] * m[2] + m[4],
  n[4] * m[1] + n[5] * m[3] + m[5],
];
export const apply = (m: Matrix, x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];

/** Placement box of the unit square under `ctm`, in top-left page coordinates. */
export function unitBox(ctm: Matrix, pageHeight: number, originY: number, originX: number): Box {
  const pts = [apply(ctm, 0, 0), apply(ctm, 1, 0), apply(ctm, 0, 1), apply(ctm, 1, 1)];
  const xs = pts.map((p) => p[0] - originX);
  const ys = pts.map((p) => pageHeight - (p[1] - originY));
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

export interface PdfImageObject {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8ClampedArray | Uint8Array;
}

export interface Placement {
  objId: string | null;
  inline: PdfImageObject | null;
  ctm: Matrix;
}

/** Walks an operator list keeping the current transformation matrix through save/restore and forms. */
export function placements(pdfjs: PdfJs, fnArray: number[], argsArray: unknown[][], base: Matrix): Placement[] {
  const { OPS } = pdfjs;
  const out: Placement[] = [];
  const stack: Matrix[] = [];
  let ctm = base;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] ?? [];
    switch (fn) {
      case OPS.save:
        stack.push(ctm);
        break;
      case OPS.restore:
        ctm = stack.pop() ?? ctm;
        break;
      case OPS.transform:
        ctm = multiply(ctm, args as Matrix);
        break;
      case OPS.paintFormXObjectBegin:
        stack.push(ctm);
        if (Array.isArray(args[0]) && args[0].length === 6) ctm = multiply(ctm, args[0] as Matrix);
        break;
      case OPS.paintFormXObjectEnd:
        ctm = stack.pop() ?? ctm;
        break;
      case OPS.paintImageXObject:
        out.push({ objId: String(args[0]), inline: null, ctm });
        break;
      case OPS.paintInlineImageXObject:
        out.push({ objId: null, inline: args[0] as PdfImageObject, ctm });
        break;
      case OPS.paintImageXObjectRepeat: {
        const [objId, sx, sy, positions] = args as [string, number, number, number[]];
        for (let p = 0; p + 1 < positions.length; p += 2) out.push({ objId, inline: null, ctm: multiply(ctm, [sx, 0, 0, sy, positions[p]!, positions[p + 1]!]) });
        break;
      }
      default:
        break;
    }
  }
  return out;
}

export function getObject(page: { objs: { get(id: string, cb: (v: unknown) => void): void }; commonObjs: { get(id: string, cb: (v: unknown) => void): void } }, id: string): Promise<PdfImageObject | null> {
  const store = id.startsWith('g_') ? page.commonObjs : page.objs;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), 10_000);
    store.get(id, (v) => {
      clearTimeout(timer);
      resolve((v as PdfImageObject) ?? null);
    });
  });
}
