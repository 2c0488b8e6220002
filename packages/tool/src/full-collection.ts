/**
 * V8's full garbage collection, for embed()'s `collectGarbage`: the tool's peak memory then holds the
 * original and the decoded written file, not also a marked copy V8 has not collected yet. The flag is
 * set at run time because a single executable takes no node options (jest's leak detector does the same).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function fullCollection(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? () => (gc as () => void)() : undefined;
  } catch {
    return undefined;
  }
}
