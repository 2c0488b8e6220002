/** A query frame that looks like a registered video's frame. */
export interface FrameHit {
  mediaId: number;
  /** Seconds into the query video (0 for a still image). */
  queryTime: number;
  /** Seconds into the registered video. */
  matchedTime: number;
  /** Similarity evidence (votes of the visual index). */
  score: number;
}

export interface TimeRange {
  start: number;
  end: number;
  duration: number;
}

export interface Alignment {
  mediaId: number;
  /** matched time = query time + offset. */
  offset: number;
  query: TimeRange;
  matched: TimeRange;
  /** Query frames that agree on the offset (each paired with its own registered frame). */
  frames: number;
  /** Agreeing frames weighted by their share of their query frame's best vote. */
  score: number;
  /** Raw index votes of the agreeing frames (to compare a straight and a mirrored reading). */
  votes: number;
}

export interface AlignOptions {
  /** Offsets within this many seconds agree (sampling phase and jitter). */
  tolerance?: number;
  /** Fewest agreeing query frames for a match. */
  minFrames?: number;
  /** Seconds a query frame stands for (1 / sampling rate). */
  frameSpan: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Temporal alignment: for each registered video, the time offset most query frames agree on (a
 * copied clip keeps its frames in order at the original pace); the agreeing frames give the
 * query's time range and, shifted by the offset, the registered video's.
 */
export function alignHits(hits: FrameHit[], options: AlignOptions): Alignment[] {
  const tolerance = options.tolerance ?? 0.75;
  const minFrames = options.minFrames ?? 3;
  const byMedia = new Map<number, FrameHit[]>();
  for (const h of hits) byMedia.set(h.mediaId, [...(byMedia.get(h.mediaId) ?? []), h]);
  const out: Alignment[] = [];
  for (const [mediaId, list] of byMedia) {
    // A hit counts by its share of its query frame's best vote: near-identical neighbouring frames
    // (a still shot) all get votes, the right one gets the most.
    const frameBest = new Map<number, number>();
    for (const h of list) frameBest.set(h.queryTime, Math.max(frameBest.get(h.queryTime) ?? 0, h.score));
    const weight = (h: FrameHit) => h.score / frameBest.get(h.queryTime)!;
    const offsets = list.map((h) => h.matchedTime - h.queryTime).sort((a, b) => a - b);
    // The offset whose tolerance window holds the most distinct query frames (sliding window). Each
    // registered frame stands for one query frame only: a still registered shot that looks like
    // several query frames is one piece of evidence, not several (one-to-one, best votes first).
    let best: { offset: number; agreeing: FrameHit[]; score: number; votes: number } | null = null;
    for (const centre of offsets) {
      const agreeing = list
        .filter((h) => Math.abs(h.matchedTime - h.queryTime - centre) <= tolerance)
        .sort((a, b) => b.score - a.score);
      const usedQuery = new Set<number>();
      const usedMatched = new Set<number>();
      const kept: FrameHit[] = [];
      for (const h of agreeing) {
        if (usedQuery.has(h.queryTime) || usedMatched.has(h.matchedTime)) continue;
        usedQuery.add(h.queryTime);
        usedMatched.add(h.matchedTime);
        kept.push(h);
      }
      const score = kept.reduce((s, h) => s + weight(h), 0);
      if (!best || score > best.score) best = { offset: centre, agreeing: kept, score, votes: kept.reduce((s, h) => s + h.score, 0) };
    }
    if (!best || best.agreeing.length < minFrames) continue;
    const ds = best.agreeing.map((h) => h.matchedTime - h.queryTime).sort((a, b) => a - b);
    const offset = ds[Math.floor(ds.length / 2)]!;
    const qs = best.agreeing.map((h) => h.queryTime);
    const qStart = Math.min(...qs);
    const qEnd = Math.max(...qs) + options.frameSpan;
    out.push({
      mediaId,
      offset: round(offset),
      query: { start: round(qStart), end: round(qEnd), duration: round(qEnd - qStart) },
      matched: { start: round(Math.max(0, qStart + offset)), end: round(qEnd + offset), duration: round(qEnd - qStart) },
      frames: best.agreeing.length,
      score: best.score,
      votes: best.votes,
    });
  }
  return out.sort((a, b) => b.frames - a.frames || b.score - a.score);
}
