import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folder of the package a file belongs to (nearest package.json up), or the file's folder. */
export function packageRootOf(file: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return dirname(file);
  }
}
