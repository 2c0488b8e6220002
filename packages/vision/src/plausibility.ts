/**
 * Sanity of a fitted query -> reference transform. RANSAC on a few hundred ratio-test matches
 * between unrelated images can still gather a dozen or two "inliers" with a degenerate model: a
 * homography that folds the query onto a sliver, mirrors it, or shrinks it to a few pixels. A real
 * copy maps the query's frame to a convex, unmirrored, not wildly stretched quadrilateral that
 * overlaps the reference. These checks cost microseconds and remove those false validations.
 */
import { apply, type Mat3 } from './homography';

export interface Plausibility {
  ok: boolean;
  /** Mapped query area over the reference area. */
  areaRatio: number;
  /** Largest ratio between the scale changes of the quadrilateral's sides (1 = similarity). */
  anisotropy: number;
  reason?: string;
}

const cross = (ax: number, ay: number, bx: number, by: number) => ax * by - ay * bx;

export function transformPlausibility(h: Mat3, qw: number, qh: number, rw: number, rh: number): Plausibility {
  const src = [0, 0, qw, 0, qw, qh, 0, qh];
  const q: number[] = [];
  for (let i = 0; i < 4; i++) {
    const x = src[2 * i]!, y = src[2 * i + 1]!;
    if (h[6] * x + h[7] * y + h[8] <= 0) return { ok: false, areaRatio: 0, anisotropy: Infinity, reason: 'behind the camera' };
    q.push(...apply(h, x, y));
  }
  // Convex, with the source's orientation (clockwise in image coordinates): no fold, no mirror.
  let area = 0;
  for (let i = 0; i < 4; i++) {
    const [ax, ay, bx, by, cx, cy] = [q[2 * i]!, q[2 * i + 1]!, q[(2 * i + 2) % 8]!, q[(2 * i + 3) % 8]!, q[(2 * i + 4) % 8]!, q[(2 * i + 5) % 8]!];
    if (cross(bx - ax, by - ay, cx - bx, cy - by) <= 0) return { ok: false, areaRatio: 0, anisotropy: Infinity, reason: 'folded or mirrored' };
    area += ax * by - bx * ay;
  }
  const areaRatio = Math.abs(area) / 2 / (rw * rh);
  const sides: number[] = [];
  for (let i = 0; i < 4; i++) {
    const j = (i + 1) % 4;
    const mapped = Math.hypot(q[2 * j]! - q[2 * i]!, q[2 * j + 1]! - q[2 * i + 1]!);
    const orig = Math.hypot(src[2 * j]! - src[2 * i]!, src[2 * j + 1]! - src[2 * i + 1]!);
    sides.push(mapped / orig);
  }
  const anisotropy = Math.max(...sides) / Math.min(...sides);
  // The mapped frame must reach into the reference: its centre within the reference, widened by half.
  const cx = (q[0]! + q[2]! + q[4]! + q[6]!) / 4, cy = (q[1]! + q[3]! + q[5]! + q[7]!) / 4;
  const inside = cx > -rw / 2 && cx < 1.5 * rw && cy > -rh / 2 && cy < 1.5 * rh;
  if (!inside) return { ok: false, areaRatio, anisotropy, reason: 'outside the reference' };
  if (areaRatio < 0.02 || areaRatio > 16) return { ok: false, areaRatio, anisotropy, reason: 'implausible scale' };
  if (anisotropy > 2.5) return { ok: false, areaRatio, anisotropy, reason: 'stretched' };
  return { ok: true, areaRatio, anisotropy };
}
